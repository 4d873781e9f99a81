package dev.tierlock.testkit;

import static dev.tierlock.testkit.LockFixture.KEY;
import static dev.tierlock.testkit.LockFixture.OPTIONS;
import static dev.tierlock.testkit.LockFixture.RESERVATION;
import static dev.tierlock.testkit.LockFixture.TTL;
import static dev.tierlock.testkit.LockFixture.assertBackoffWithinBounds;
import static dev.tierlock.testkit.LockFixture.mustMatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.DistributedLock;
import dev.tierlock.Environment;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockInfo;
import dev.tierlock.LockOptions;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.Tierlock;
import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The {@link DistributedLockContract} cases about a lease's life: acquire, inspect, heartbeat and
 * release; {@code withLock} and {@code tryAcquire}; a timeout naming key, holder and time waited
 * after a bounded backoff; force-release by nonce; the key never leaving its namespace; the lock
 * order; and mutual exclusion of four real threads.
 */
final class LockLeaseScenarios {

  private static final int THREADS = 4;
  private static final int ROUNDS = 25;

  private final LockFixture fixture;
  private final FaultyDatastore store;
  private final TestClock clock;
  private final ManualHeartbeats heartbeats;

  LockLeaseScenarios(LockFixture fixture) {
    this.fixture = fixture;
    this.store = fixture.store();
    this.clock = fixture.clock();
    this.heartbeats = fixture.heartbeats();
  }

  void acquireInspectRelease_freeLock_holdsItThenDeletesItsOwnVersionOnce() {
    DistributedLock lock = fixture.lockOf("ada");
    Instant start = clock.instant();

    DistributedLock.Held lease = lock.acquire();

    assertThat(lease.isHeld()).isTrue();
    LockInfo info = lease.info();
    assertThat(info.holder()).isEqualTo("ada@host-ada");
    assertThat(info.hostname()).isEqualTo("host-ada");
    assertThat(info.acquiredAt()).isEqualTo(start);
    assertThat(info.ttl()).isEqualTo(TTL);
    assertThat(info.nonce()).isNotBlank();
    assertThat(lock.inspect()).contains(info);
    assertThat(lock.describe()).contains(KEY.value()).contains(store.describe());
    assertThat(heartbeats.intervals()).containsExactly(TTL.dividedBy(3));
    assertThat(fixture.logged(DatastoreOperation.WRITE)).containsExactly("mustNotExist -> WRITTEN");
    ObjectVersion version = fixture.storedVersion();

    lease.release();

    assertThat(lease.isHeld()).isFalse();
    assertThat(lock.inspect()).isEmpty();
    assertThat(heartbeats.running()).isZero();
    assertThat(fixture.logged(DatastoreOperation.DELETE)).containsExactly(mustMatch(version) + " -> DELETED");
    long calls = store.log().size();
    lease.release();
    lease.close();
    assertThat(store.log().size()).as("a second release makes no call").isEqualTo(calls);
    assertThat(clock.sleeps()).isEmpty();
  }

  void heartbeat_refreshesTheRecordConditionally() {
    DistributedLock.Held lease = fixture.lockOf("ada").acquire();
    ObjectVersion first = fixture.storedVersion();

    clock.advance(TTL.dividedBy(3));
    heartbeats.beat();

    assertThat(lease.isHeld()).isTrue();
    assertThat(fixture.storedHolder()).isEqualTo(lease.info().refreshedAt(clock.instant()));
    assertThat(fixture.logged(DatastoreOperation.WRITE)).containsExactly("mustNotExist -> WRITTEN", mustMatch(first) + " -> WRITTEN");
    lease.release();
  }

  void withLock_releasesAfterTheAction() {
    DistributedLock lock = fixture.lockOf("ada");

    String seen = lock.withLock(() -> fixture.storedHolder().holder());

    assertThat(seen).isEqualTo("ada@host-ada");
    assertThat(lock.inspect()).isEmpty();
  }

  void acquire_busy_timesOutWithKeyHolderAndTimeWaited() {
    DistributedLock.Held held = fixture.peer("ada").options(OPTIONS.withTtl(Duration.ofMinutes(5))).build().acquire();
    LockInfo holder = held.info();

    assertThatThrownBy(fixture.lockOf("bob")::acquire)
        .isInstanceOf(LockTimeoutException.class)
        .hasMessage("Cannot acquire lock \"" + KEY.value() + "\": held by ada@host-ada (pid " + holder.pid()
            + ", nonce " + holder.nonce() + "); timed out after 60000 ms")
        .satisfies(e -> {
          LockTimeoutException timeout = (LockTimeoutException) e;
          assertThat(timeout.code()).isEqualTo("lock_timeout");
          assertThat(timeout.lockKey()).isEqualTo(KEY.value());
          assertThat(timeout.holder()).contains(holder);
          assertThat(timeout.waited()).isEqualTo(OPTIONS.maxWait());
        });

    assertThat(clock.slept()).as("every wait went through the injected sleeper").isEqualTo(OPTIONS.maxWait());
    assertBackoffWithinBounds(clock.sleeps(), OPTIONS);
    assertThat(fixture.storedHolder()).isEqualTo(holder);
    assertThat(fixture.logged(DatastoreOperation.DELETE)).isEmpty();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).first().isEqualTo("mustNotExist -> WRITTEN");
    assertThat(fixture.logged(DatastoreOperation.WRITE).subList(1, fixture.logged(DatastoreOperation.WRITE).size()))
        .hasSizeBetween(1, clock.sleeps().size() + 1)
        .allSatisfy(w -> assertThat(w).isEqualTo("mustNotExist -> PRECONDITION_FAILED"));
    // past its bound the waiter reserved the next turn, refreshed the reservation every ttl/3, and removed it on giving up
    List<String> reservation = fixture.logged(DatastoreOperation.WRITE, RESERVATION);
    assertThat(reservation).first().isEqualTo("mustNotExist -> WRITTEN");
    assertThat(reservation.subList(1, reservation.size())).isNotEmpty()
        .allSatisfy(w -> assertThat(w).startsWith("mustMatch(").endsWith(" -> WRITTEN"));
    assertThat(fixture.logged(DatastoreOperation.DELETE, RESERVATION)).singleElement().asString().endsWith(" -> DELETED");
    assertThat(store.delegate().stat(RESERVATION)).isEmpty();
    held.release();
  }

  void forceRelease_byNonce_deletesOnlyThatHolding() {
    DistributedLock.Held held = fixture.lockOf("ada").acquire();
    ObjectVersion version = fixture.storedVersion();
    DistributedLock operator = fixture.lockOf("ops");

    assertThat(operator.forceRelease("not-the-nonce")).isFalse();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(held.info().nonce());
    assertThat(operator.forceRelease(held.info().nonce())).isTrue();

    assertThat(operator.inspect()).isEmpty();
    assertThat(fixture.logged(DatastoreOperation.DELETE)).containsExactly(mustMatch(version) + " -> DELETED");
    heartbeats.beat();
    assertThat(held.isHeld()).isFalse();
    assertThat(operator.forceRelease(held.info().nonce())).isFalse();
    held.release();
    assertThat(store.log().entries(DatastoreOperation.DELETE)).hasSize(1);
  }

  void forceRelease_blankNonce_isRejectedAndChangesNothing() {
    DistributedLock.Held held = fixture.lockOf("ada").acquire();
    DistributedLock operator = fixture.lockOf("ops");
    long calls = store.log().size();

    assertThatThrownBy(() -> operator.forceRelease(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot force-release " + operator.describe() + ": the nonce is blank");
    assertThat(store.log().size()).isEqualTo(calls);
    assertThat(fixture.storedHolder().nonce()).isEqualTo(held.info().nonce());
    held.release();
  }

  void tryAcquire_busyThenFree_returnsEmptyThenALeaseWithoutWaiting() {
    DistributedLock.Held held = fixture.lockOf("ada").acquire();
    DistributedLock other = fixture.lockOf("bob");

    assertThat(other.tryAcquire()).isEmpty();
    held.release();
    Optional<DistributedLock.Held> free = other.tryAcquire();

    assertThat(free).hasValueSatisfying(lease -> assertThat(lease.isHeld()).isTrue());
    assertThat(fixture.storedHolder().nonce()).isEqualTo(free.get().info().nonce());
    assertThat(clock.sleeps()).isEmpty();
    free.get().release();
  }

  void lockKey_neverLeavesTheNamespace() {
    assertThat(KEY.value()).isEqualTo("ns1/.datastore.lock");
    DistributedLock.Held first = fixture.lockOf("ada").acquire();
    assertThat(fixture.lockOf("bob").tryAcquire()).isEmpty();
    clock.advance(TTL.plusSeconds(1));
    DistributedLock.Held second = fixture.lockOf("bob").acquire();
    heartbeats.beat();
    first.release();
    second.release();
    DistributedLock.Held third = fixture.lockOf("cy").acquire();
    assertThat(fixture.lockOf("ops").forceRelease(third.info().nonce())).isTrue();
    third.release();
    assertThat(fixture.lockOf("ops").inspect()).isEmpty();

    assertThat(store.log().entries()).isNotEmpty()
        .allSatisfy(e -> assertThat(e.target()).isIn(KEY.value(), RESERVATION.value()));
    assertThat(fixture.leftovers()).isEmpty();
  }

  void acquire_whileHoldingAnInnerLock_isRejectedBeforeAnyCall() throws IOException {
    Path checkout = Files.createTempDirectory("tierlock-lock-order");
    try {
      DistributedLock lock = fixture.lockOf("ada");
      // a transaction of another store holding its checkout's pulled-extensions lock: an inner level
      try (FakeRemote other = FakeRemote.create();
          Tierlock holder = Tierlock.builder().datastore(other).checkout(checkout).build()) {
        holder.transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
          assertThatThrownBy(lock::acquire)
              .isInstanceOf(IllegalStateException.class)
              .hasMessageStartingWith("Cannot acquire " + lock.describe()
                  + ": the GLOBAL lock is taken before the PULLED_EXTENSIONS lock");
          assertThatThrownBy(lock::tryAcquire)
              .isInstanceOf(IllegalStateException.class)
              .hasMessageContaining("the GLOBAL lock is taken before the PULLED_EXTENSIONS lock");
          return null;
        }));
      }
      assertThat(store.log().entries()).isEmpty();
      lock.acquire().release();
      assertThat(store.delegate().stat(KEY)).isEmpty();
    } finally {
      try (Stream<Path> files = Files.walk(checkout)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
  }

  void acquireRelease_fourThreads_areMutuallyExclusive() throws Exception {
    LockOptions fast = new LockOptions(Duration.ofSeconds(20), Duration.ofMillis(1), Duration.ofMillis(16), Duration.ofSeconds(60));
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger mostInside = new AtomicInteger();
    AtomicInteger counter = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        DistributedLock lock = fixture.globalLock("t" + t, Environment.system().withRandom(new SplittableRandom(t))
            .withLockIdentity(LockIdentity.of("t" + t + "@h", "h", t)).withHeartbeats(ManualHeartbeats.create()), fast);
        workers.add(pool.submit(() -> {
          for (int round = 0; round < ROUNDS; round++) {
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
      for (Future<?> worker : workers) {
        worker.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    assertThat(mostInside.get()).isEqualTo(1);
    assertThat(counter.get()).isEqualTo(THREADS * ROUNDS);
    assertThat(store.delegate().stat(KEY)).isEmpty();
    assertThat(fixture.logged(DatastoreOperation.DELETE)).hasSize(THREADS * ROUNDS)
        .allSatisfy(e -> assertThat(e).endsWith(" -> DELETED"));
    assertThat(store.delegate().stat(RESERVATION)).as("every reservation was removed once used").isEmpty();
  }
}
