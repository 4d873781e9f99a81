package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
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
import java.util.Collections;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The waits of a lease lock's waiter: the first cap is its first attempt's own duration on the
 * lock's clock (the store's round trip, here 10 ms a call added to the test clock), at most the
 * retry interval; each wait is the injected unit draw times the cap (full jitter); the cap doubles
 * up to the maximum retry interval while one holder stays, and starts again from the first cap when
 * the lock changes hands; a waiter that has seen it change hands 64 times reserves the next turn;
 * no wait runs past the deadline.
 */
class LeaseRetryScheduleTest {

  private static final ObjectKey KEY = DistributedLock.globalKey(Namespace.of("ns1"));
  private static final Duration RTT = Duration.ofMillis(10);

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();

  @AfterEach
  void close() {
    remote.close();
  }

  @Test
  void acquire_waits_startNearTheMeasuredRoundTrip_withFullJitter_andDoubleUpToTheMaximum() {
    remote.faults().latency(RTT, clock::advance, Duration.ofMinutes(1));
    DistributedLock.Held held = holder();
    DistributedLock waiter = waiter(LockOptions.DEFAULTS.withMaxWait(Duration.ofSeconds(12)),
        0.5, 0.25, 0.75, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5);

    assertThatThrownBy(waiter::acquire).isInstanceOf(LockTimeoutException.class)
        .hasMessageStartingWith("Cannot acquire lock \"" + KEY.value() + "\": held by ada@elsewhere");

    List<Long> millis = clock.sleeps().stream().map(Duration::toMillis).toList();
    // the first attempt, a create and a read, took two round trips: 20 ms is the first cap
    assertThat(millis.subList(0, 10)).containsExactly(10L, 10L, 60L, 80L, 160L, 320L, 640L, 1280L, 2560L, 4000L);
    assertThat(clock.sleeps()).allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(LockOptions.DEFAULTS.maxRetryInterval()));
    held.release();
  }

  @Test
  void acquire_firstCap_isAtMostTheRetryInterval_onASlowStore() {
    remote.faults().latency(Duration.ofSeconds(2), clock::advance, Duration.ofMinutes(1));
    DistributedLock.Held held = holder();
    DistributedLock waiter = waiter(LockOptions.DEFAULTS, 1.0, 1.0);

    assertThatThrownBy(waiter::acquire).isInstanceOf(LockTimeoutException.class);

    assertThat(clock.sleeps().subList(0, 2)).as("a 4 s attempt caps its first wait at the 1 s retry interval")
        .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
    held.release();
  }

  @Test
  void acquire_lastWait_endsExactlyAtTheDeadline() {
    DistributedLock.Held held = holder();
    DistributedLock waiter = waiter(LockOptions.DEFAULTS.withMaxWait(Duration.ofMillis(11)), 1.0, 1.0, 1.0, 1.0, 1.0, 1.0);

    assertThatThrownBy(waiter::acquire).isInstanceOf(LockTimeoutException.class)
        .hasMessageEndingWith("timed out after 11 ms");

    // the test clock sees no round trip: the first cap is the shortest, 1 ms; past half its wait the
    // waiter reserves the next turn and its caps start again from 1 ms; the last, 4 ms, is cut to the
    // 1 ms left
    assertThat(clock.sleeps()).containsExactly(Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(4),
        Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(1));
    assertThat(clock.slept()).isEqualTo(Duration.ofMillis(11));
    held.release();
  }

  @Test
  void acquire_waits_startAgainFromTheFirstCap_whenTheLockChangesHands() {
    remote.faults().latency(RTT, clock::advance, Duration.ofMinutes(1));
    DistributedLock.Held[] held = {holder()};
    Sleeper advance = clock.sleeper();
    int[] sleeps = {0};
    // after bob's fourth wait, ada's holding ends and cy's begins: the lock is moving, not stuck
    Sleeper script = d -> {
      advance.sleep(d);
      if (++sleeps[0] == 4) {
        held[0].release();
        held[0] = peer("cy").acquire();
      }
    };
    DistributedLock waiter = waiter(LockOptions.DEFAULTS.withMaxWait(Duration.ofSeconds(2)), script);

    assertThatThrownBy(waiter::acquire).isInstanceOf(LockTimeoutException.class)
        .hasMessageStartingWith("Cannot acquire lock \"" + KEY.value() + "\": held by cy@elsewhere");

    List<Long> millis = clock.sleeps().stream().map(Duration::toMillis).toList();
    // the first cap is the first attempt's two round trips, 20 ms, and each draw is 0.5; the fifth
    // attempt meets cy and the caps start again from 20 ms, while cy stays they double again
    assertThat(millis.subList(0, 8)).containsExactly(10L, 20L, 40L, 80L, 10L, 20L, 40L, 80L);
    held[0].release();
  }

  @Test
  void acquire_reservesTheNextTurn_onceItHasSeenTheLockChangeHands64Times_longBeforeItsTimeBound() {
    remote.faults().latency(RTT, clock::advance, Duration.ofMinutes(1));
    DistributedLock.Held[] held = {holder()};
    ObjectKey reservation = ObjectKey.of(KEY.value() + ".reservation");
    Sleeper advance = clock.sleeper();
    int[] sleeps = {0};
    List<Boolean> reservedBefore = new ArrayList<>();
    Instant start = clock.instant();
    // before each of bob's attempts another peer holds the lock: bob loses every race
    Sleeper script = d -> {
      advance.sleep(d);
      reservedBefore.add(remote.read(reservation, ReadCondition.always(), 4096) instanceof ReadResult.Found);
      held[0].release();
      if (++sleeps[0] <= 64) {
        held[0] = peer("peer" + sleeps[0]).acquire();
      }
    };
    DistributedLock waiter = waiter(LockOptions.DEFAULTS, script);

    DistributedLock.Held bobs = waiter.acquire();

    assertThat(reservedBefore).as("no reservation while bob has seen fewer than 64 turnovers").hasSize(65)
        .containsOnly(false, true).startsWith(Collections.nCopies(64, false).toArray(Boolean[]::new))
        .endsWith(true);
    assertThat(Duration.between(start, clock.instant())).as("well within the 16 s time bound")
        .isLessThan(Duration.ofSeconds(16));
    assertThat(bobs.info().holder()).isEqualTo("bob@here");
    bobs.release();
    assertThat(remote.read(reservation, ReadCondition.always(), 4096)).as("removed once bob holds the lock")
        .isEqualTo(ReadResult.Absent.INSTANCE);
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
  void acquire_aReserverBehindAHolderThatIgnoresReservations_letsItsWaitsGrowAfter256Turnovers() {
    DistributedLock.Held[] held = {holder()};
    Sleeper advance = clock.sleeper();
    ObjectKey reservation = ObjectKey.of(KEY.value() + ".reservation");
    int[] holds = {0};
    // once bob has reserved, a holder that knows nothing of reservations takes the lock again at
    // every one of bob's waits: bob sees a turnover on every attempt until its deadline
    Sleeper script = d -> {
      advance.sleep(d);
      if (remote.read(reservation, ReadCondition.always(), 4096) instanceof ReadResult.Found) {
        held[0].release();
        held[0] = peer("orig" + (++holds[0])).acquire();
      }
    };
    DistributedLock waiter = waiter(LockOptions.DEFAULTS.withMaxWait(Duration.ofSeconds(60)), script);

    assertThatThrownBy(waiter::acquire).isInstanceOf(LockTimeoutException.class);

    assertThat(holds[0]).as("the holder turned over past the reserver's restarts").isGreaterThan(256);
    assertThat(clock.sleeps()).as("bounded polling: not one wait per millisecond for 60 s").hasSizeLessThan(1000);
    assertThat(clock.sleeps().get(clock.sleeps().size() - 2)).as("the waits grew to the reserver's cap")
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
}
