package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.DistributedLock;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import dev.tierlock.testkit.gcs.GcsOperation;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * On GCS (about one write per second to one object) an uncontended commit in auto mode is one
 * write of the lockfile: no lease object is created or deleted, and the checkout's pacing waits
 * only when the lockfile was written less than a second ago (on the injected clock), exactly the
 * rest of that second.
 */
@ExtendWith(GcsFakeServerExtension.class)
class GcsAutoCommitTest {

  private static final Namespace NAMESPACE = Namespace.of("team");
  private static final String LOCKFILE = "tier/" + NAMESPACE.key(TierPath.LOCKFILE).value();
  private static final String LOCK = "tier/" + DistributedLock.globalKey(NAMESPACE).value();

  @TempDir Path temp;

  @Test
  void anUncontendedAutoCommit_isOneWrite_unpacedAfterAQuietSecond_pacedToTheRestOfItOtherwise(GcsFakeBucket bucket) {
    TestClock clock = TestClock.create();
    try (Datastore shared = GcsDatastore.of(TestStorage.retrying(bucket.server()), bucket.name(), "tier");
        TestCheckout a = TestCheckout.builder(shared, temp.resolve("a"), clock).namespace(NAMESPACE)
            .commitMode(CommitMode.AUTO).build()) {
      // a new lockfile is written under the lease until eight Tierlock versions are in its lineage
      for (int i = 0; i < 8; i++) {
        a.put("@s/x", "0." + i);
        clock.advance(Duration.ofSeconds(2));
      }
      bucket.server().clearRequests();
      int slept = clock.sleeps().size();

      assertThat(a.put("@s/x", "1.0.0").status()).isEqualTo(TransactionStatus.PUBLISHED);

      assertThat(bucket.server().requests()).singleElement().satisfies(r -> {
        assertThat(r.operation()).isEqualTo(GcsOperation.UPLOAD);
        assertThat(r.object()).isEqualTo(LOCKFILE);
      });
      assertThat(clock.sleeps()).as("not written in the last second: no wait").hasSize(slept);

      clock.advance(Duration.ofMillis(250));
      bucket.server().clearRequests();

      assertThat(a.put("@s/x", "1.0.1").status()).isEqualTo(TransactionStatus.PUBLISHED);

      assertThat(bucket.server().requests()).singleElement().satisfies(r -> {
        assertThat(r.operation()).isEqualTo(GcsOperation.UPLOAD);
        assertThat(r.object()).isEqualTo(LOCKFILE);
      });
      assertThat(clock.sleeps().subList(slept, clock.sleeps().size())).as("written 250 ms ago: the rest of the second")
          .containsExactly(Duration.ofMillis(750));
      assertThat(bucket.server().peek(bucket.name(), LOCK)).isEmpty();
    }
  }
}
