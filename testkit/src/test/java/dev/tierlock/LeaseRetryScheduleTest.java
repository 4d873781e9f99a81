package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.testkit.DatastoreOperation;
import dev.tierlock.testkit.FakeRemote;
import dev.tierlock.testkit.Fault;
import dev.tierlock.testkit.HostTable;
import dev.tierlock.testkit.ManualHeartbeats;
import dev.tierlock.testkit.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The attempts and waits of a lease lock's waiter: each refused attempt is one call (the holder is
 * read when the lease never read it or its last read is a third of the ttl old, never after every
 * refused create); the waits scale with the hold this lease measured (here its holdings, on the test
 * clock, with 10 ms a call added to it), not with the round trip, and nothing starts again when the
 * lock changes hands; behind one long holder they grow to the maximum retry interval; no wait runs
 * past the deadline.
 */
class LeaseRetryScheduleTest {

  private static final ObjectKey KEY = DistributedLock.globalKey(Namespace.of("ns1"));
  private static final Duration RTT = Duration.ofMillis(10);

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();
  private final CountingStore counted = new CountingStore(remote, clock);

  @AfterEach
  void close() {
    remote.close();
  }

  @Test
  void acquire_eachRefusedAttempt_isOneCall_andTheAcquisitionItsCreatesPlusOneReadOfTheHolder() {
    DistributedLock.Held[] held = {holder()};
    Sleeper advance = clock.sleeper();
    List<Integer> callsAtSleeps = new ArrayList<>();
    // ada releases during bob's eighth wait
    Sleeper script = d -> {
      advance.sleep(d);
      callsAtSleeps.add(counted.calls().size());
      if (callsAtSleeps.size() == 8) {
        held[0].release();
      }
    };
    DistributedLock waiter = new Lease(counted, KEY, LockOptions.DEFAULTS, bob(script), Lease.HandoverBudget.DEFAULT);

    DistributedLock.Held bobs = waiter.acquire();

    assertThat(callsAtSleeps).as("a create and the first read of the holder, then one call an attempt")
        .containsExactly(2, 3, 4, 5, 6, 7, 8, 9);
    assertThat(counted.calls()).as("eight creates, one read of the holder, one of the reservation (the lease contends now)")
        .containsExactly("write " + KEY.value(), "read " + KEY.value(), "read " + KEY.value() + ".reservation",
            "write " + KEY.value(), "write " + KEY.value(), "write " + KEY.value(), "write " + KEY.value(),
            "write " + KEY.value(), "write " + KEY.value(), "write " + KEY.value());
    assertThat(bobs.info().holder()).isEqualTo("bob@here");
    bobs.release();
  }

  @Test
  void acquire_behindOneLongHolder_readsItOnceAThirdOfTheTtl_andItsWaitsGrowToTheMaximum() {
    DistributedLock.Held held = holder();
    DistributedLock waiter = new Lease(counted, KEY, LockOptions.DEFAULTS, bob(clock.sleeper()), Lease.HandoverBudget.DEFAULT);

    assertThatThrownBy(waiter::acquire).isInstanceOf(LockTimeoutException.class)
        .hasMessageStartingWith("Cannot acquire lock \"" + KEY.value() + "\": held by ada@elsewhere")
        .hasMessageEndingWith("timed out after 60000 ms");

    List<Instant> reads = counted.times("read " + KEY.value());
    assertThat(reads).as("read at the first refusal, then once a third of the ttl at most").hasSizeBetween(2, 7);
    for (int i = 1; i < reads.size(); i++) {
      assertThat(Duration.between(reads.get(i - 1), reads.get(i))).isGreaterThanOrEqualTo(LockOptions.DEFAULTS.heartbeatInterval());
    }
    assertThat(counted.calls()).as("each attempt one call; the waits grew from 1 ms by a quarter of the time waited")
        .hasSizeLessThan(400);
    assertThat(clock.sleeps()).allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(LockOptions.DEFAULTS.maxRetryInterval()));
    held.release();
  }

  @Test
  void acquire_waits_scaleWithTheMeasuredHold_notTheRoundTrip_andDoNotStartAgainWhenTheLockChangesHands() {
    remote.faults().latency(RTT, clock::advance, Duration.ofMinutes(1));
    DistributedLock.Held[] held = {null};
    List<Duration> waits = new ArrayList<>();
    // before each of bob's attempts the lock changes hands; after the sixth wait it stands free
    Sleeper script = d -> {
      clock.advance(d);
      waits.add(d);
      held[0].release();
      if (waits.size() < 6) {
        held[0] = peer("peer" + waits.size()).acquire();
      }
    };
    DistributedLock waiter = new Lease(remote, KEY, LockOptions.DEFAULTS, bob(script), Lease.HandoverBudget.DEFAULT);
    for (int i = 0; i < 3; i++) {
      // three holdings of 40 ms each: the create's round trip and 30 ms of work
      DistributedLock.Held own = waiter.acquire();
      clock.advance(Duration.ofMillis(30));
      own.release();
    }
    held[0] = holder();

    DistributedLock.Held bobs = waiter.acquire();

    // the round trip is 10 ms and the hold 40 ms; each draw is 0.5
    assertThat(waits).as("at least half a hold (twice the round trip), never back to the round trip at a turnover")
        .hasSize(6).allSatisfy(d -> assertThat(d).isGreaterThanOrEqualTo(Duration.ofMillis(20)));
    assertThat(bobs.info().holder()).isEqualTo("bob@here");
    bobs.release();
  }

  @Test
  void acquire_lastWait_endsExactlyAtTheDeadline() {
    DistributedLock.Held held = holder();
    DistributedLock waiter = waiter(LockOptions.DEFAULTS.withMaxWait(Duration.ofMillis(11)), 1.0, 1.0, 1.0, 1.0, 1.0, 1.0);

    assertThatThrownBy(waiter::acquire).isInstanceOf(LockTimeoutException.class)
        .hasMessageEndingWith("timed out after 11 ms");

    // the test clock sees no round trip: the hold is the shortest, 1 ms; each wait 1.5 times the
    // longer of it and a quarter of the time waited; the last is cut to what is left
    assertThat(clock.slept()).isEqualTo(Duration.ofMillis(11));
    assertThat(clock.sleeps()).allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofMillis(5)));
    held.release();
  }

  @Test
  void acquire_refusedForTheStoresPerObjectRate_waitsOutItsIntervalAndAcquires() {
    try (FakeRemote paced = FakeRemote.builder().minWriteInterval(Duration.ofSeconds(1)).build()) {
      paced.faults().failNext(DatastoreOperation.WRITE, 1, Fault.BUSY);
      DistributedLock waiter = new Lease(paced, KEY, LockOptions.DEFAULTS, bob(clock.sleeper()),
          Lease.HandoverBudget.DEFAULT);

      DistributedLock.Held lease = waiter.acquire();

      assertThat(clock.sleeps()).as("one wait, of the store's interval, not a failure").containsExactly(Duration.ofSeconds(1));
      assertThat(lease.isHeld()).isTrue();
      lease.release();
    }
  }

  @Test
  void acquire_aReserverBehindAHolderThatIgnoresReservations_pollsBoundedly_itsWaitsGrowing() {
    DistributedLock.Held[] held = {holder()};
    Sleeper advance = clock.sleeper();
    ObjectKey reservation = ObjectKey.of(KEY.value() + ".reservation");
    int[] holds = {0};
    // once bob has reserved, a holder that knows nothing of reservations takes the lock again at
    // every one of bob's waits
    Sleeper script = d -> {
      advance.sleep(d);
      if (remote.read(reservation, ReadCondition.always(), 4096) instanceof ReadResult.Found) {
        held[0].release();
        held[0] = peer("orig" + (++holds[0])).acquire();
      }
    };
    DistributedLock waiter = waiter(LockOptions.DEFAULTS.withMaxWait(Duration.ofSeconds(60)), script);

    assertThatThrownBy(waiter::acquire).isInstanceOf(LockTimeoutException.class);

    assertThat(holds[0]).as("the holder turned over at every wait of the reserver").isGreaterThan(100);
    assertThat(clock.sleeps()).as("bounded polling: not one wait per millisecond for 60 s").hasSizeLessThan(1000);
    assertThat(clock.sleeps().get(clock.sleeps().size() - 2)).as("the waits grew")
        .isGreaterThanOrEqualTo(Duration.ofMillis(100));
    held[0].release();
  }

  private DistributedLock.Held holder() {
    return peer("ada").acquire();
  }

  private DistributedLock peer(String name) {
    return new Lease(remote, KEY, LockOptions.DEFAULTS.withTtl(Duration.ofMinutes(10)), Environment.system()
        .withClock(clock).withSleeper(clock.sleeper()).withLockIdentity(LockIdentity.of(name + "@elsewhere", "elsewhere", 1))
        .withHostProcesses(HostTable.of("elsewhere").run(1, TestClock.DEFAULT_START))
        .withHeartbeats(ManualHeartbeats.create()), Lease.HandoverBudget.DEFAULT);
  }

  private DistributedLock waiter(LockOptions options, double... draws) {
    return waiter(options, clock.sleeper(), draws);
  }

  private DistributedLock waiter(LockOptions options, Sleeper sleeper, double... draws) {
    return new Lease(remote, KEY, options, bob(sleeper, draws), Lease.HandoverBudget.DEFAULT);
  }

  /** Returns the waiter's environment: the test clock, {@code sleeper}, and the unit draws {@code draws}. */
  private Environment bob(Sleeper sleeper, double... draws) {
    return Environment.system().withClock(clock).withSleeper(sleeper).withRandom(new Draws(draws))
        .withLockIdentity(LockIdentity.of("bob@here", "here", 2))
        .withHostProcesses(HostTable.of("here").run(2, TestClock.DEFAULT_START)).withHeartbeats(ManualHeartbeats.create());
  }

  /** Unit draws given by the test, then 0.5 for ever. */
  private static final class Draws implements RandomGenerator {
    private final ArrayDeque<Double> left = new ArrayDeque<>();

    Draws(double... draws) {
      for (double draw : draws) {
        left.add(draw);
      }
    }

    @Override
    public synchronized double nextDouble() {
      Double next = left.poll();
      return next == null ? 0.5 : next;
    }

    @Override
    public long nextLong() {
      throw new UnsupportedOperationException("only unit draws are scripted");
    }
  }

  /** The store's calls, each as its operation and key, and when each was made on the test clock. */
  private static final class CountingStore extends ForwardingDatastore {
    private final Datastore delegate;
    private final TestClock clock;
    private final List<String> calls = new ArrayList<>();
    private final List<Instant> times = new ArrayList<>();

    CountingStore(Datastore delegate, TestClock clock) {
      this.delegate = delegate;
      this.clock = clock;
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }

    private synchronized void count(String operation, ObjectKey key) {
      calls.add(operation + " " + key.value());
      times.add(clock.instant());
    }

    synchronized List<String> calls() {
      return List.copyOf(calls);
    }

    synchronized List<Instant> times(String call) {
      List<Instant> at = new ArrayList<>();
      for (int i = 0; i < calls.size(); i++) {
        if (calls.get(i).equals(call)) {
          at.add(times.get(i));
        }
      }
      return at;
    }

    @Override
    public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
      count("read", key);
      return super.read(key, condition, maxBytes);
    }

    @Override
    public Optional<StoredObject> stat(ObjectKey key) {
      count("stat", key);
      return super.stat(key);
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      count("write", key);
      return super.write(key, body, condition, metadata);
    }

    @Override
    public DeleteResult delete(ObjectKey key, WriteCondition condition) {
      count("delete", key);
      return super.delete(key, condition);
    }
  }
}
