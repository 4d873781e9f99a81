package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.ExtensionName;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.Namespace;
import dev.tierlock.PendingChange;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import dev.tierlock.testkit.gcs.GcsOperation;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * GCS's limit of about one write per second to one object name, as real 429 {@code
 * rateLimitExceeded} answers of the fake server to writes of the shared lockfile: a transaction
 * backs off (on its test clock) and publishes within its deadline; a burst past the deadline ends
 * in a clear error with the change kept pending.
 */
@ExtendWith(GcsFakeServerExtension.class)
class GcsLockfileThrottlingTest {

  private static final Namespace NAMESPACE = Namespace.of("team");
  private static final String LOCKFILE = "tier/" + NAMESPACE.key(TierPath.LOCKFILE).value();

  @TempDir Path temp;

  @Test
  void throttledLockfileWrites_areAbsorbedWithinTheDeadline(GcsFakeBucket bucket) {
    TestClock clock = TestClock.create();
    try (Datastore shared = GcsDatastore.of(TestStorage.retrying(bucket.server()), bucket.name(), "tier");
        TestCheckout a = TestCheckout.builder(shared, temp.resolve("a"), clock).namespace(NAMESPACE).build()) {
      bucket.server().faults().throttleWrites(bucket.name(), LOCKFILE, 4);
      bucket.server().clearRequests();

      TransactionResult result = a.put("@s/x", "1");

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(result.attempts()).isEqualTo(5);
      assertThat(bucket.server().requests())
          .filteredOn(r -> r.operation() == GcsOperation.UPLOAD && r.object().equals(LOCKFILE)).hasSize(5);
      assertThat(clock.sleeps()).hasSizeGreaterThanOrEqualTo(4);
      assertThat(a.shared().entries()).containsKey(ExtensionName.of("@s/x"));
    }
  }

  @Test
  void aThrottlingBurstLongerThanTheDeadline_endsInAClearErrorWithTheChangePending(GcsFakeBucket bucket) {
    TestClock clock = TestClock.create();
    try (Datastore shared = GcsDatastore.of(TestStorage.retrying(bucket.server()), bucket.name(), "tier");
        TestCheckout a = TestCheckout.builder(shared, temp.resolve("a"), clock).namespace(NAMESPACE)
            .transactionDeadline(Duration.ofSeconds(20)).build()) {
      bucket.server().faults().throttleWrites(bucket.name(), LOCKFILE, 1_000);
      Instant start = clock.instant();

      assertThatThrownBy(() -> a.put("@s/x", "1"))
          .isInstanceOf(ManagedConfigUnpublishedException.class)
          .hasMessageStartingWith("Cannot publish lockfile change to ")
          .hasMessageEndingWith("; the change (set @s/x 1) is saved in "
              + a.pendingRecordPath()
              + " and the next transaction on this checkout publishes it")
          .satisfies(e -> assertThat(((ManagedConfigUnpublishedException) e).code()).isEqualTo("managed_config_unpublished"))
          .satisfies(e -> assertThat(e.getCause()).isInstanceOf(DatastoreBusyException.class)
              .hasMessageContaining("throttled by GCS"));
      assertThat(Duration.between(start, clock.instant())).isLessThanOrEqualTo(Duration.ofSeconds(20));
      assertThat(a.transaction().pending()).hasValueSatisfying(p -> assertThat(p.state())
          .isEqualTo(PendingChange.State.UNPUBLISHED));
      assertThat(bucket.server().peek(bucket.name(), LOCKFILE)).isEmpty();

      bucket.server().faults().clear();
      assertThat(a.transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(a.shared().entries()).containsKey(ExtensionName.of("@s/x"));
    }
  }
}
