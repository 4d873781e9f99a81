package dev.tierlock;

import com.google.common.testing.EqualsTester;
import com.google.common.testing.NullPointerTester;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Every public value type refuses {@code null} where its signature does not allow it (Guava's
 * {@link NullPointerTester}, which reads the {@code @Nullable} annotations), and is equal exactly
 * when its parts are ({@link EqualsTester}, which also checks {@code hashCode} and reflexivity).
 */
class PublicValueTypesTest {

  private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void publicFactoriesAndMethods_refuseNullWhereNotAllowed() {
    NullPointerTester tester = new NullPointerTester()
        .setDefault(ExtensionName.class, ExtensionName.of("@s/a"))
        .setDefault(Namespace.class, Namespace.NONE)
        .setDefault(TierPath.class, TierPath.LOCKFILE)
        .setDefault(String.class, "@s/a")
        .setDefault(Instant.class, AT)
        .setDefault(Duration.class, Duration.ofSeconds(1))
        .setDefault(LockfileEntry.class, LockfileEntry.builder("1", AT).build())
        .setDefault(Lockfile.class, Lockfile.EMPTY)
        .setDefault(LockfileDelta.class, LockfileDelta.EMPTY)
        .setDefault(ObjectKey.class, ObjectKey.of("a/b"))
        .setDefault(ObjectVersion.class, ObjectVersion.of("v1"))
        .setDefault(ObjectMetadata.class, ObjectMetadata.EMPTY);
    for (Class<?> type : new Class<?>[] {ExtensionName.class, Namespace.class, TierPath.class, LockIdentity.class,
        LockOptions.class, LockInfo.class, LockfileEntry.class, Lockfile.class, LockfileDelta.class, ObjectKey.class,
        ObjectVersion.class, ObjectMetadata.class, DatastoreIdentity.class}) {
      tester.testAllPublicStaticMethods(type);
    }
    tester.testAllPublicInstanceMethods(ExtensionName.of("@s/a"));
    tester.testAllPublicInstanceMethods(Namespace.of("team"));
    tester.testAllPublicInstanceMethods(LockOptions.DEFAULTS);
    tester.testAllPublicInstanceMethods(new LockInfo("a@h", "h", 1, AT, Duration.ofSeconds(30), "n-1"));
    tester.testAllPublicConstructors(LockInfo.class);
    tester.testAllPublicInstanceMethods(LockfileEntry.builder("1", AT).build());
    tester.testAllPublicInstanceMethods(Lockfile.EMPTY);
    tester.testAllPublicInstanceMethods(LockfileDelta.EMPTY);
    tester.setDefault(Clock.class, Clock.systemUTC()).setDefault(LockIdentity.class, LockIdentity.of("a@h", "h", 1))
        .testAllPublicInstanceMethods(Environment.system());
  }

  @Test
  void valueTypes_areEqualExactlyWhenTheirPartsAre() {
    new EqualsTester()
        .addEqualityGroup(ExtensionName.of("@s/a"), ExtensionName.of("@s/a"))
        .addEqualityGroup(ExtensionName.of("@s/b"))
        .testEquals();
    new EqualsTester()
        .addEqualityGroup(Namespace.NONE, Namespace.of(""))
        .addEqualityGroup(Namespace.of("team"), Namespace.of("team"))
        .testEquals();
    new EqualsTester()
        .addEqualityGroup(TierPath.LOCKFILE, TierPath.of("config/upstream_extensions.json"))
        .addEqualityGroup(TierPath.of("config/other"))
        .testEquals();
    new EqualsTester()
        .addEqualityGroup(LockfileEntry.builder("1", AT).build(), LockfileEntry.builder("1", AT).build())
        .addEqualityGroup(LockfileEntry.builder("2", AT).build())
        .addEqualityGroup(LockfileEntry.builder("1", AT).channel("beta").build())
        .testEquals();
    new EqualsTester()
        .addEqualityGroup(LockIdentity.of("a@h", "h", 1), LockIdentity.of("a@h", "h", 1))
        .addEqualityGroup(LockIdentity.of("a@h", "h", 2))
        .testEquals();
    LockInfo info = new LockInfo("a@h", "h", 1, AT, Duration.ofSeconds(30), "n-1");
    new EqualsTester()
        .addEqualityGroup(info, new LockInfo("a@h", "h", 1, AT, Duration.ofSeconds(30), "n-1"))
        .addEqualityGroup(info.withProcessStart(AT), new LockInfo("a@h", "h", 1, AT, Duration.ofSeconds(30), "n-1")
            .withProcessStart(AT))
        .addEqualityGroup(info.refreshedAt(AT.plusSeconds(1)))
        .addEqualityGroup(new LockInfo("a@h", "h", 2, AT, Duration.ofSeconds(30), "n-1"))
        .addEqualityGroup(new LockInfo("a@h", "h", 1, AT, Duration.ofSeconds(30), "n-2"))
        .testEquals();
    new EqualsTester()
        .addEqualityGroup(ObjectKey.of("a/b"), ObjectKey.of("a/b"))
        .addEqualityGroup(ObjectKey.of("a/c"))
        .testEquals();
    new EqualsTester()
        .addEqualityGroup(ObjectVersion.of("v1"), ObjectVersion.of("v1"))
        .addEqualityGroup(ObjectVersion.of("v2"))
        .testEquals();
    new EqualsTester()
        .addEqualityGroup(new DatastoreIdentity("s3", "e", "b", "p"), new DatastoreIdentity("s3", "e", "b", "p"))
        .addEqualityGroup(new DatastoreIdentity("s3", "e", "b", "q"))
        .addEqualityGroup(new DatastoreIdentity("gs", "e", "b", "p"))
        .testEquals();
  }
}
