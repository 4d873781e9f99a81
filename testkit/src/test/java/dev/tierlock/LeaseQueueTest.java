package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.CountingDatastore;
import dev.tierlock.testkit.DatastoreOperation;
import dev.tierlock.testkit.FakeRemote;
import dev.tierlock.testkit.HostTable;
import dev.tierlock.testkit.ManualHeartbeats;
import dev.tierlock.testkit.TestClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lease's in-JVM queue: callers of one JVM on one store, key and identity (here several lock
 * instances, as several Tierlocks of one process would have) wait in memory first come first
 * served, and a held lease passes from one to the next without a remote call, within its budget.
 * Calls are counted on the store; time is a {@link TestClock}; each caller runs on its own thread,
 * and the test waits for each to be queued (the lease tells its environment's queueing hook, on the
 * caller's thread, once the caller has its place) before it starts the next, so the order of
 * arrival is the test's own.
 */
class LeaseQueueTest {

  private static final ObjectKey KEY = DistributedLock.globalKey(Namespace.of("ns1"));
  private static final LockIdentity APP = LockIdentity.of("app@box", "box", 4242);
  private static final HostTable BOX = HostTable.of("box").run(4242, TestClock.DEFAULT_START.minusSeconds(60));
  private static final long BOUND_SECONDS = 30;

  private final FakeRemote remote = FakeRemote.create();
  private final CountingDatastore store = CountingDatastore.wrap(remote);
  private final TestClock clock = TestClock.create();
  private final ManualHeartbeats heartbeats = ManualHeartbeats.create();
  private final List<String> order = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger inside = new AtomicInteger();
  private final AtomicInteger mostInside = new AtomicInteger();
  private final List<Caller> callers = new ArrayList<>();
  /** Each caller's latch, opened when the lease tells the queueing hook on the caller's thread. */
  private final Map<Thread, CountDownLatch> queued = new ConcurrentHashMap<>();

  @AfterEach
  void stopCallers() throws InterruptedException {
    for (Caller caller : callers) {
      caller.thread.interrupt();
      caller.thread.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
    }
    remote.close();
  }

  @Test
  void acquire_callersOfOneJvm_areServedInArrivalOrder_eachHandoverWithoutARemoteCall() throws Exception {
    DistributedLock.Held first = lock().acquire();
    Caller b = queue("b", lock());
    Caller c = queue("c", lock());
    Caller d = queue("d", lock());
    assertThat(store.counts().get(DatastoreOperation.WRITE)).as("one create, by the first caller").isEqualTo(1);
    store.reset();

    first.release();
    b.awaitHolding();
    assertThat(first.isHeld()).isFalse();
    assertThat(store.total()).as("handed from the first caller to b").isZero();
    b.release();
    c.awaitHolding();
    c.release();
    d.awaitHolding();
    assertThat(store.total()).as("handed on twice more").isZero();
    d.release();
    d.awaitReleased();

    assertThat(order).containsExactly("b", "c", "d");
    assertThat(mostInside.get()).as("never two holders at once").isEqualTo(1);
    assertThat(List.of(b.info(), c.info(), d.info())).extracting(LockInfo::nonce)
        .as("each continues the first caller's remote holding").containsOnly(first.info().nonce());
    assertThat(store.counts()).as("the last release deletes the record, once")
        .containsEntry(DatastoreOperation.DELETE, 1L).containsEntry(DatastoreOperation.WRITE, 0L);
    assertThat(store.total()).isEqualTo(1);
    assertThat(remote.stat(KEY)).isEmpty();
  }

  @Test
  void release_afterTheHandoverBudget_releasesRemotely_andTheNextCallerAcquiresRemotely() throws Exception {
    DistributedLock.Held first = budget(2, Duration.ofHours(1)).acquire();
    Caller b = queue("b", lock());
    Caller c = queue("c", lock());
    Caller d = queue("d", lock());
    store.reset();

    first.release();
    b.awaitHolding();
    b.release();
    c.awaitHolding();
    assertThat(store.total()).as("two handovers, within the budget of two").isZero();
    c.release();
    d.awaitHolding();

    assertThat(store.count(DatastoreOperation.DELETE)).as("the budget spent, c released remotely").isEqualTo(1);
    assertThat(store.count(DatastoreOperation.WRITE)).as("and d created the lock anew").isEqualTo(1);
    assertThat(d.info().nonce()).isNotEqualTo(first.info().nonce());
    assertThat(storedNonce()).isEqualTo(d.info().nonce());
    d.release();
    d.awaitReleased();
    assertThat(order).containsExactly("b", "c", "d");
    assertThat(mostInside.get()).isEqualTo(1);
    assertThat(remote.stat(KEY)).isEmpty();
  }

  @Test
  void release_afterTheHandoverTimeBudget_releasesRemotely() throws Exception {
    DistributedLock.Held first = budget(16, Duration.ofSeconds(5)).acquire();
    Caller b = queue("b", lock());
    store.reset();
    clock.advance(Duration.ofSeconds(5));

    first.release();
    b.awaitHolding();

    assertThat(store.count(DatastoreOperation.DELETE)).as("held for its whole time budget").isEqualTo(1);
    assertThat(store.count(DatastoreOperation.WRITE)).isEqualTo(1);
    assertThat(b.info().nonce()).isNotEqualTo(first.info().nonce());
    b.release();
    b.awaitReleased();
  }

  @Test
  void release_ofALeaseNoLongerHeld_isNotHandedOver_theNextCallerAcquiresRemotely() throws Exception {
    DistributedLock.Held first = lock().acquire();
    Caller b = queue("b", lock());
    clock.advance(LockOptions.DEFAULTS.ttl());
    assertThat(first.isHeld()).as("no heartbeat confirmed it for a ttl").isFalse();
    store.reset();

    first.release();
    b.awaitHolding();

    assertThat(b.info().nonce()).isNotEqualTo(first.info().nonce());
    assertThat(store.count(DatastoreOperation.WRITE)).as("b acquired remotely").isPositive();
    assertThat(storedNonce()).isEqualTo(b.info().nonce());
    b.release();
    b.awaitReleased();
    assertThat(remote.stat(KEY)).isEmpty();
  }

  @Test
  void acquire_aCallerGivingUp_leavesTheQueue_andThoseBehindKeepTheirPlaces() throws Exception {
    DistributedLock.Held first = lock().acquire();
    // b gives up after 2 s of the test clock; it re-reads the clock at least every 5 ms
    Caller b = queue("b", lock(new LockOptions(Duration.ofSeconds(30), Duration.ofMillis(1), Duration.ofMillis(5),
        Duration.ofSeconds(2))));
    Caller c = queue("c", lock());
    Caller d = queue("d", lock());
    Caller e = queue("e", lock());

    clock.advance(Duration.ofSeconds(3));
    Throwable timedOut = b.awaitFailure();
    d.thread.interrupt();
    Throwable interrupted = d.awaitFailure();
    store.reset();
    first.release();
    c.awaitHolding();
    c.release();
    e.awaitHolding();
    e.release();
    e.awaitReleased();

    assertThat(timedOut).isInstanceOf(LockTimeoutException.class)
        .hasMessageStartingWith("Cannot acquire lock \"" + KEY.value() + "\": held by app@box (pid 4242, nonce "
            + first.info().nonce() + "); timed out after 3000 ms");
    assertThat(((LockTimeoutException) timedOut).holder()).contains(first.info());
    assertThat(interrupted).isInstanceOf(InterruptedOperationException.class)
        .hasMessageStartingWith("Cannot acquire lock \"" + KEY.value() + "\"");
    assertThat(order).as("c and e kept their places; b and d never held").containsExactly("c", "e");
    assertThat(store.counts()).as("handed from the first caller to c to e, then released")
        .containsEntry(DatastoreOperation.WRITE, 0L).containsEntry(DatastoreOperation.DELETE, 1L);
    assertThat(mostInside.get()).isEqualTo(1);
  }

  @Test
  void release_twiceOrAfterTheTurnPassed_neverReleasesTheNextCallersTurn() throws Exception {
    DistributedLock.Held first = lock().acquire();
    Caller b = queue("b", lock());
    first.release();
    b.awaitHolding();
    store.reset();

    first.release();
    first.close();

    assertThat(store.total()).as("a stale lease makes no call").isZero();
    assertThat(first.isHeld()).isFalse();
    assertThat(b.lease().isHeld()).isTrue();
    Caller c = queue("c", lock());
    b.release();
    c.awaitHolding();
    b.lease().release();
    first.release();
    assertThat(c.lease().isHeld()).as("b's and the first lease, released again, left c's turn alone").isTrue();
    assertThat(store.total()).isZero();
    assertThat(storedNonce()).isEqualTo(first.info().nonce());
    c.release();
    c.awaitReleased();
    assertThat(store.count(DatastoreOperation.DELETE)).isEqualTo(1);
    assertThat(remote.stat(KEY)).isEmpty();
  }

  @Test
  void tryAcquire_whileACallerOfThisJvmHoldsIt_isEmptyWithoutARemoteCall() {
    DistributedLock.Held first = lock().acquire();
    DistributedLock other = lock();
    store.reset();

    assertThat(other.tryAcquire()).isEmpty();
    assertThat(store.total()).isZero();
    first.release();
    DistributedLock.Held second = other.tryAcquire().orElseThrow();
    assertThat(second.info().nonce()).isNotEqualTo(first.info().nonce());
    second.release();
    assertThat(remote.stat(KEY)).isEmpty();
  }

  @Test
  void acquire_otherIdentities_doNotShareTheQueue_theyContendByTheStore() {
    DistributedLock.Held first = lock().acquire();
    DistributedLock stranger = lease(Environment.system().withClock(clock).withSleeper(clock.sleeper())
        .withLockIdentity(LockIdentity.of("other@box2", "box2", 7)).withHeartbeats(heartbeats)
        .withHostProcesses(HostTable.of("box2").run(7, TestClock.DEFAULT_START)), LockOptions.DEFAULTS,
        Lease.HandoverBudget.DEFAULT);
    store.reset();

    assertThat(stranger.tryAcquire()).as("another process's lock asks the store").isEmpty();

    assertThat(store.count(DatastoreOperation.WRITE)).isEqualTo(1);
    first.release();
  }

  /**
   * Three processes of three callers each, on the real clock and real threads: no two holders ever
   * overlap, whether the lease passed in a JVM or through the store.
   */
  @Test
  void acquireRelease_threeProcessesOfThreeThreads_neverOverlap() throws Exception {
    LockOptions fast = new LockOptions(Duration.ofSeconds(20), Duration.ofMillis(1), Duration.ofMillis(8), Duration.ofSeconds(60));
    AtomicInteger counter = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(9);
    int rounds = 12;
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int process = 0; process < 3; process++) {
        LockIdentity identity = LockIdentity.of("p" + process + "@h", "h", 100 + process);
        for (int thread = 0; thread < 3; thread++) {
          DistributedLock lock = lease(Environment.system().withRandom(new SplittableRandom(process * 10L + thread))
              .withLockIdentity(identity).withHeartbeats(ManualHeartbeats.create()).withHostProcesses(HostTable.of("h")),
              fast, Lease.HandoverBudget.DEFAULT);
          workers.add(pool.submit(() -> {
            for (int round = 0; round < rounds; round++) {
              try (DistributedLock.Held lease = lock.acquire()) {
                mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                int seen = counter.get();
                Thread.yield();
                counter.set(seen + 1);
                inside.decrementAndGet();
              }
            }
            return null;
          }));
        }
      }
      for (Future<?> worker : workers) {
        worker.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    assertThat(mostInside.get()).isEqualTo(1);
    assertThat(counter.get()).isEqualTo(9 * rounds);
    assertThat(remote.stat(KEY)).isEmpty();
    assertThat(remote.stat(ObjectKey.of(KEY.value() + ".reservation"))).isEmpty();
  }

  /** Returns a lease of this test's store, key and identity, as a Tierlock builds it. */
  private DistributedLock lease(Environment environment, LockOptions options, Lease.HandoverBudget budget) {
    return new Lease(store, KEY, options, environment, budget);
  }

  private Environment app() {
    return Environment.system().withClock(clock).withSleeper(clock.sleeper()).withRandom(new SplittableRandom(1))
        .withLockIdentity(APP).withHeartbeats(heartbeats).withHostProcesses(BOX).withQueueing(waitedFor -> {
          CountDownLatch latch = queued.get(Thread.currentThread());
          if (latch != null) {
            latch.countDown();
          }
        });
  }

  private DistributedLock lock() {
    return lease(app(), LockOptions.DEFAULTS, Lease.HandoverBudget.DEFAULT);
  }

  private DistributedLock lock(LockOptions options) {
    return lease(app(), options, Lease.HandoverBudget.DEFAULT);
  }

  private DistributedLock budget(int leases, Duration held) {
    return lease(app(), LockOptions.DEFAULTS, new Lease.HandoverBudget(leases, held));
  }

  /** Starts {@code name} acquiring {@code lock} on a thread of its own and returns once it waits in the queue. */
  private Caller queue(String name, DistributedLock lock) {
    Caller caller = new Caller(name, lock);
    callers.add(caller);
    CountDownLatch latch = new CountDownLatch(1);
    queued.put(caller.thread, latch);
    caller.thread.start();
    try {
      if (!latch.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("Cannot see " + name + " queued: " + caller.failure.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("Cannot see " + name + " queued: interrupted", e);
    }
    return caller;
  }

  /** One caller on a thread of its own: acquires, records its turn, holds until told, releases. */
  private final class Caller {
    final Thread thread;
    private final CountDownLatch holding = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);
    private final AtomicReference<DistributedLock.@Nullable Held> lease = new AtomicReference<>();
    private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

    Caller(String name, DistributedLock lock) {
      this.thread = new Thread(() -> {
        DistributedLock.Held held = null;
        try {
          held = lock.acquire();
          lease.set(held);
          mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
          order.add(name);
          holding.countDown();
          release.await();
          inside.decrementAndGet();
        } catch (RuntimeException | InterruptedException e) {
          failure.set(e);
        } finally {
          if (held != null) {
            held.release();
          }
          done.countDown();
        }
      }, "caller " + name);
      thread.setDaemon(true);
    }

    void awaitHolding() throws InterruptedException {
      if (!holding.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError(thread.getName() + " did not get the lease: " + failure.get());
      }
    }

    void release() {
      release.countDown();
    }

    void awaitReleased() throws InterruptedException {
      assertThat(done.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("%s finished", thread.getName()).isTrue();
    }

    Throwable awaitFailure() throws InterruptedException {
      awaitReleased();
      Throwable seen = failure.get();
      assertThat(seen).as("%s failed", thread.getName()).isNotNull();
      return seen;
    }

    DistributedLock.Held lease() {
      DistributedLock.Held held = lease.get();
      assertThat(held).as("%s holds a lease", thread.getName()).isNotNull();
      return held;
    }

    LockInfo info() {
      return lease().info();
    }
  }

  /** Returns the nonce of the holder the store shows, read past the counting through a lock that only inspects. */
  private String storedNonce() {
    return new Lease(remote, KEY, LockOptions.DEFAULTS, Environment.system()
        .withLockIdentity(LockIdentity.of("inspector@nowhere", "nowhere", 0)), Lease.HandoverBudget.DEFAULT)
        .inspect().map(LockInfo::nonce).orElse("<free>");
  }
}
