package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.Namespace;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The turn a writer without the lease gives its peers once it has seen contention, and that it
 * costs nothing otherwise: exact calls and exact waits on an injected clock, with every call to the
 * store taking one round trip of that clock.
 */
class WriterTurnTest {

  private static final Duration RTT = Duration.ofMillis(10);

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();
  private final CountingDatastore counting = CountingDatastore.wrap(new RoundTrips(remote, clock));

  @AfterEach
  void tearDown() {
    remote.close();
  }

  @Test
  void aLoneWritersWarmCommits_costOneCallEach_andNeverWait() {
    for (CommitMode mode : new CommitMode[] {CommitMode.OPTIMISTIC, CommitMode.AUTO}) {
      // a lockfile of its own, which it creates: it never sees a peer's version
      TestCheckout writer = TestCheckout.builder(counting, dir.resolve("lone-" + mode), clock).commitMode(mode)
          .namespace(Namespace.of("lone-" + mode.name().toLowerCase(Locale.ROOT))).build();
      // auto mode trusts the lockfile after 8 Tierlock versions; these are the writer's own
      for (int i = 0; i < 8; i++) {
        writer.put("@s/warm", "0.0." + i);
      }
      for (int i = 0; i < 5; i++) {
        counting.reset();
        int slept = clock.sleeps().size();

        assertThat(writer.put("@s/lone", "1.0." + i).status()).isEqualTo(TransactionStatus.PUBLISHED);

        assertThat(counting.counts()).as(mode + " commit " + i).containsEntry(DatastoreOperation.WRITE, 1L);
        assertThat(counting.total()).as(mode + " commit " + i).isEqualTo(1);
        assertThat(clock.sleeps().subList(slept, clock.sleeps().size())).as(mode + " commit " + i).isEmpty();
      }
    }
  }

  @Test
  void aWriterThatSawAPeersWrite_givesATurnBeforeItsNextWarmWrite_stillOneCall_untilTheWindowPasses() {
    TestCheckout writer = checkout("writer", CommitMode.OPTIMISTIC);
    TestCheckout peer = checkout("peer", CommitMode.OPTIMISTIC);
    peer.put("@s/peer", "1.0.0");
    // the writer's first commit lands on the peer's version: contention seen
    writer.put("@s/mine", "1.0.0");
    for (int i = 1; i <= 3; i++) {
      counting.reset();
      int slept = clock.sleeps().size();

      assertThat(writer.put("@s/mine", "1.0." + i).status()).isEqualTo(TransactionStatus.PUBLISHED);

      assertThat(counting.total()).as("commit " + i).isEqualTo(1);
      List<Duration> waits = clock.sleeps().subList(slept, clock.sleeps().size());
      // one pause, after the previous acknowledgement (now): a draw of up to its round trip
      assertThat(waits).as("commit " + i).hasSize(1)
          .allSatisfy(wait -> assertThat(wait).isPositive().isLessThan(RTT));
    }
    clock.advance(Duration.ofSeconds(10));
    counting.reset();
    int slept = clock.sleeps().size();

    writer.put("@s/mine", "2.0.0");

    // the window has passed without contention: no pause
    assertThat(counting.total()).isEqualTo(1);
    assertThat(clock.sleeps().subList(slept, clock.sleeps().size())).isEmpty();
  }

  @Test
  void aWriterThatLostARace_givesATurnAfterItsNextCommit() {
    TestCheckout writer = checkout("writer", CommitMode.OPTIMISTIC);
    TestCheckout peer = checkout("peer", CommitMode.OPTIMISTIC);
    writer.put("@s/mine", "1.0.0");
    writer.put("@s/mine", "1.0.1");
    peer.transaction().refresh();
    peer.put("@s/peer", "1.0.0");
    counting.reset();

    // a warm write on a stale version: refused (a race lost), fetched, written again
    writer.put("@s/mine", "1.0.2");

    assertThat(counting.counts()).containsEntry(DatastoreOperation.WRITE, 2L);
    int slept = clock.sleeps().size();
    counting.reset();

    writer.put("@s/mine", "1.0.3");

    assertThat(counting.total()).isEqualTo(1);
    assertThat(clock.sleeps().subList(slept, clock.sleeps().size())).hasSize(1)
        .allSatisfy(wait -> assertThat(wait).isPositive().isLessThan(RTT));
  }

  private TestCheckout checkout(String name, CommitMode mode) {
    return TestCheckout.builder(counting, dir.resolve(name), clock).commitMode(mode).build();
  }

  /** Each lockfile read or write takes one round trip of the test clock. */
  private static final class RoundTrips extends ForwardingDatastore {
    private final Datastore delegate;
    private final TestClock clock;

    RoundTrips(Datastore delegate, TestClock clock) {
      this.delegate = delegate;
      this.clock = clock;
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }

    @Override
    protected boolean passesPreconditionsThrough() {
      return true;
    }

    @Override
    public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
      clock.advance(RTT);
      return super.read(key, condition, maxBytes);
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      clock.advance(RTT);
      return super.write(key, body, condition, metadata);
    }
  }
}
