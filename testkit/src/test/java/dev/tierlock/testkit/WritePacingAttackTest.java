package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adversarial review of write pacing. README: "Lockfile writes of one checkout keep to the store's
 * per-object rate (Datastore.minWriteInterval(): one per second on GCS), so on GCS queued callers
 * join the next write instead of meeting a 429"; WritePacingTest: "a write follows the last one no
 * sooner, so a refusal for the rate never happens". Each test records the test-clock instant at
 * which every lockfile write reaches the store.
 */
class WritePacingAttackTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final Duration INTERVAL = Duration.ofSeconds(1);

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.builder().minWriteInterval(INTERVAL).build();
  private final TestClock clock = TestClock.create();
  private final List<Instant> writes = new CopyOnWriteArrayList<>();
  private final Datastore recorded = new ForwardingDatastore() {
    /** Returns true: it only records when lockfile writes are sent. */
    @Override
    protected boolean passesPreconditionsThrough() {
      return true;
    }

    @Override
    protected Datastore delegate() {
      return remote;
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      if (key.equals(LOCKFILE)) {
        writes.add(clock.instant());
      }
      return remote.write(key, body, condition, metadata);
    }

    @Override
    public void close() {}
  };

  @AfterEach
  void tearDown() {
    remote.close();
  }

  /**
   * FINDING (low). A transaction deadline (500 ms) shorter than the store's interval (1 s):
   * {@code CommitLoop.pace()} sleeps min(wait, time left) and then sends the write anyway, 500 ms
   * after the previous one, a write the store is known to refuse for its rate (a 429 on GCS, then
   * the change is left unpublished). Expected: the write is never sent sooner than the interval
   * (the run fails, or defers, with the change pending, without sending a write the store must
   * refuse).
   */
  @Test
  void aDeadlineShorterThanTheInterval_neverSendsAWriteSoonerThanTheInterval() {
    TestCheckout checkout = TestCheckout.builder(recorded, dir.resolve("c"), clock).commitMode(CommitMode.OPTIMISTIC)
        .transactionDeadline(Duration.ofMillis(500)).build();
    checkout.put("@s/a", "1.0.0");

    try {
      checkout.put("@s/a", "1.0.1");
    } catch (RuntimeException expectedPerhaps) {
      // failing is an honest answer; sending early is not
    }

    assertThat(gaps()).as("gaps between lockfile writes, at %s", writes).allSatisfy(g -> assertThat(g)
        .isGreaterThanOrEqualTo(INTERVAL));
  }

  /**
   * FINDING (low). Two Tierlock instances on one checkout directory (two processes, or two
   * instances in one JVM): the last-sent instant lives in each instance's LockfileStore, so their
   * writes of the one lockfile are not paced against each other: the second goes out at once.
   */
  @Test
  void twoInstancesOnOneCheckout_keepTheirWritesToTheInterval() {
    TestCheckout a = TestCheckout.builder(recorded, dir.resolve("c"), clock).commitMode(CommitMode.OPTIMISTIC).build();
    TestCheckout b = TestCheckout.builder(recorded, dir.resolve("c"), clock).commitMode(CommitMode.OPTIMISTIC).build();

    a.put("@s/a", "1.0.0");
    b.put("@s/b", "1.0.0");

    assertThat(writes).hasSize(2);
    assertThat(gaps()).as("gaps between the checkout's lockfile writes, at %s", writes).allSatisfy(g -> assertThat(g)
        .isGreaterThanOrEqualTo(INTERVAL));
  }

  /**
   * HELD. A write refused for a peer's newer lockfile is rebased and sent again no sooner than the
   * interval after the refused one (race wait, then pace).
   */
  @Test
  void aRetryAfterARaceLost_keepsToTheInterval() {
    TestCheckout c = TestCheckout.builder(recorded, dir.resolve("c"), clock).commitMode(CommitMode.OPTIMISTIC).build();
    TestCheckout peer = TestCheckout.builder(remote, dir.resolve("peer"), clock).commitMode(CommitMode.OPTIMISTIC)
        .build();
    c.put("@s/a", "1.0.0");
    clock.advance(Duration.ofSeconds(5));
    peer.put("@s/p", "1.0.0");
    clock.advance(Duration.ofSeconds(5));

    c.put("@s/a", "1.0.1");

    assertThat(writes).hasSize(3);
    assertThat(gaps()).allSatisfy(g -> assertThat(g).isGreaterThanOrEqualTo(INTERVAL));
    assertThat(c.shared().entries()).hasSize(2);
  }

  private List<Duration> gaps() {
    List<Duration> out = new java.util.ArrayList<>();
    for (int i = 1; i < writes.size(); i++) {
      out.add(Duration.between(writes.get(i - 1), writes.get(i)));
    }
    return out;
  }
}
