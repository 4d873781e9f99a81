package dev.tierlock.datastore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.DatastoreOperation;
import dev.tierlock.testkit.Fault;
import dev.tierlock.testkit.FaultyDatastore;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * On the real S3 server (S3Proxy): ETags are digests of the bytes, so a peer's removal of the entry
 * a write in flight had added brings the parent's ETag back. The checkout's next run reads the
 * metadata that ETag has now, finds its commit in the lineage, and keeps the peer's acknowledged
 * removal. See the testkit's {@code RepeatedVersionLandingTest} for the fake-remote variants.
 */
@ExtendWith(S3ServerExtension.class)
class S3RepeatedVersionLandingTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);

  @TempDir Path temp;

  @Test
  void anInFlightWrite_thenAPeerRemovalThatRestoresTheParentBytes_theNextRunKeepsThePeersRemoval(S3TestBucket bucket) {
    TestClock clock = TestClock.create();
    FaultyDatastore store = FaultyDatastore.wrap(bucket.datastore("tier"));
    try (TestCheckout a = TestCheckout.builder(store, temp.resolve("a"), clock).build();
        TestCheckout b = TestCheckout.builder(store, temp.resolve("b"), clock).build()) {
      a.put("@s/base", "1");
      store.faults().beforeNext(DatastoreOperation.WRITE, LOCKFILE::equals, () -> store.faults()
          .failNext(DatastoreOperation.STAT, LOCKFILE::equals, 50, Fault.UNAVAILABLE)
          .failNext(DatastoreOperation.READ, LOCKFILE::equals, 50, Fault.UNAVAILABLE));
      store.faults().failNext(DatastoreOperation.WRITE, LOCKFILE::equals, 1, Fault.LOSE_RESPONSE);
      assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
      store.faults().clear();
      assertThat(a.shared().contains(ExtensionName.of("@s/x"))).as("a's write landed").isTrue();
      assertThat(b.remove("@s/x").status()).as("b's removal is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);

      a.put("@s/other", "1");

      assertThat(a.shared().names()).as("b's acknowledged removal of @s/x, made after a's write landed")
          .containsExactly(ExtensionName.of("@s/base"), ExtensionName.of("@s/other"));
    }
  }
}
