package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.DistributedLock;
import dev.tierlock.LeaseLocks;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockInfo;
import dev.tierlock.LockLease;
import dev.tierlock.LockOptions;
import dev.tierlock.LockOrderException;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.PulledExtensionsLock;
import dev.tierlock.Sleeper;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
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
import org.junit.jupiter.api.Test;

/**
 * The contract of the lease lock ({@link LeaseLocks}) over a {@link Datastore}: every datastore
 * module runs it against its own store by subclassing it in a few lines:
 *
 * <pre>{@code
 * class S3DistributedLockTest extends DistributedLockContract {
 *   @Override protected Datastore createDatastore() { return S3Datastore.of(client, freshPrefix()); }
 * }
 * }</pre>
 *
 * <p>The lock lives at {@code ns1/.datastore.lock}. Each test gets a fresh store wrapped in {@link
 * FaultyDatastore}, a {@link TestClock} whose sleeper is the only way the locks wait, and
 * heartbeats beaten by hand ({@link ManualHeartbeats}); only {@link
 * #acquireRelease_fourThreads_areMutuallyExclusive()} uses real time and real threads. Covered:
 * the lifecycle; timeouts with key, holder, time waited and the backoff sequence; conditional
 * takeover of a stale holder and the old lease learning of its loss; a live holder never stolen;
 * release never deleting a successor's lock; force-release by nonce; {@code tryAcquire}; the key
 * staying in its namespace; the lock order (no global lock inside an inner lock); mutual exclusion under real concurrency; and (inherited) clock skew between holder and waiter, crashed holders, lost answers,
 * outages, refusals, heartbeats through faults, a takeover racing a heartbeat, and unreadable lock
 * records. Every test method is final. Not thread-safe (JUnit runs one test per instance).
 */
public abstract class DistributedLockContract extends DistributedLockFaultContract {

  private static final int THREADS = 4;
  private static final int ROUNDS = 25;

  /** For subclasses. */
  protected DistributedLockContract() {}

  /**
   * Returns a fresh, empty datastore (a new bucket, prefix or directory); called before each test
   * and closed after it.
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  @Override
  final Datastore freshDatastore() throws Exception {
    return createDatastore();
  }

  @Test
  public final void acquire_inspect_release_lifecycle() {
    DistributedLock lock = lockOf("ada");
    Instant start = clock().instant();

    LockLease lease = lock.acquire();

    assertThat(lease.isHeld()).isTrue();
    LockInfo info = lease.info();
    assertThat(info.holder()).isEqualTo("ada@host-ada");
    assertThat(info.hostname()).isEqualTo("host-ada");
    assertThat(info.acquiredAt()).isEqualTo(start);
    assertThat(info.ttl()).isEqualTo(TTL);
    assertThat(info.nonce()).isNotBlank();
    assertThat(lock.inspect()).contains(info);
    assertThat(lock.describe()).contains(KEY.value()).contains(store().describe());
    assertThat(heartbeats().intervals()).containsExactly(TTL.dividedBy(3));
    assertThat(logged(DatastoreOperation.WRITE)).containsExactly("mustNotExist -> WRITTEN");
    ObjectVersion version = storedVersion();

    lease.release();

    assertThat(lease.isHeld()).isFalse();
    assertThat(lock.inspect()).isEmpty();
    assertThat(heartbeats().running()).isZero();
    assertThat(logged(DatastoreOperation.DELETE)).containsExactly(mustMatch(version) + " -> DELETED");
    long calls = store().log().size();
    lease.release();
    lease.close();
    assertThat(store().log().size()).as("a second release makes no call").isEqualTo(calls);
    assertThat(clock().sleeps()).isEmpty();
  }

  @Test
  public final void heartbeat_refreshesTheRecordConditionally() {
    LockLease lease = lockOf("ada").acquire();
    ObjectVersion first = storedVersion();

    clock().advance(TTL.dividedBy(3));
    heartbeats().beat();

    assertThat(lease.isHeld()).isTrue();
    assertThat(storedHolder()).isEqualTo(lease.info().refreshedAt(clock().instant()));
    assertThat(logged(DatastoreOperation.WRITE)).containsExactly("mustNotExist -> WRITTEN", mustMatch(first) + " -> WRITTEN");
    lease.release();
  }

  @Test
  public final void withLock_releasesAfterTheAction() {
    DistributedLock lock = lockOf("ada");

    String seen = lock.withLock(() -> storedHolder().holder());

    assertThat(seen).isEqualTo("ada@host-ada");
    assertThat(lock.inspect()).isEmpty();
  }

  @Test
  public final void acquire_busy_timesOutWithKeyHolderAndTimeWaited() {
    LockLease held = peer("ada").options(OPTIONS.withTtl(Duration.ofMinutes(5))).build().acquire();
    LockInfo holder = held.info();

    assertThatThrownBy(lockOf("bob")::acquire)
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

    assertThat(clock().slept()).as("every wait went through the injected sleeper").isEqualTo(OPTIONS.maxWait());
    assertBackoffWithinBounds(clock().sleeps(), OPTIONS);
    assertThat(storedHolder()).isEqualTo(holder);
    assertThat(store().log().entries(DatastoreOperation.DELETE)).isEmpty();
    assertThat(logged(DatastoreOperation.WRITE)).first().isEqualTo("mustNotExist -> WRITTEN");
    assertThat(logged(DatastoreOperation.WRITE).subList(1, logged(DatastoreOperation.WRITE).size()))
        .hasSize(clock().sleeps().size() + 1)
        .allSatisfy(w -> assertThat(w).isEqualTo("mustNotExist -> PRECONDITION_FAILED"));
    held.release();
  }

  @Test
  public final void acquire_staleHolder_isTakenOverByAConditionalWrite_andTheOldLeaseLearnsItIsLost() {
    LockLease old = lockOf("ada").acquire();
    ObjectVersion stale = storedVersion();
    clock().advance(TTL.multipliedBy(2).plusMillis(1));

    LockLease successor = lockOf("bob").acquire();

    assertThat(clock().sleeps()).isEmpty();
    assertThat(logged(DatastoreOperation.WRITE)).containsExactly(
        "mustNotExist -> WRITTEN", "mustNotExist -> PRECONDITION_FAILED", mustMatch(stale) + " -> WRITTEN");
    assertThat(store().log().entries(DatastoreOperation.DELETE)).isEmpty();
    assertThat(storedHolder().nonce()).isEqualTo(successor.info().nonce());
    assertThat(old.isHeld()).as("twice its ttl past its last refresh, before any heartbeat").isFalse();
    heartbeats().beat();
    assertThat(old.isHeld()).isFalse();
    assertThat(successor.isHeld()).isTrue();
    old.release();
    assertThat(storedHolder().nonce()).isEqualTo(successor.info().nonce());
    successor.release();
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void acquire_liveHolder_isNeverStolen() {
    ManualHeartbeats holderBeats = ManualHeartbeats.create();
    LockLease held = peer("ada").heartbeats(holderBeats).build().acquire();
    DistributedLock waiter = peer("bob").sleeper(sleeperBeating(holderBeats)).build();

    assertThatThrownBy(waiter::acquire)
        .isInstanceOf(LockTimeoutException.class)
        .hasMessageStartingWith("Cannot acquire lock \"" + KEY.value() + "\": held by ada@host-ada");
    assertThat(clock().slept()).as("twice the ttl: only heartbeats kept the holder fresh").isEqualTo(OPTIONS.maxWait());
    assertThat(waiter.tryAcquire()).isEmpty();

    assertThat(held.isHeld()).isTrue();
    assertThat(storedHolder()).isEqualTo(held.info().refreshedAt(clock().instant()));
    held.release();
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void release_neverDeletesASuccessorsLock() {
    LockLease old = lockOf("ada").acquire();
    ObjectVersion oldVersion = storedVersion();
    clock().advance(TTL.multipliedBy(2).plusSeconds(1));
    LockLease successor = lockOf("bob").acquire();

    old.release();

    assertThat(old.isHeld()).isFalse();
    assertThat(logged(DatastoreOperation.DELETE)).containsExactly(mustMatch(oldVersion) + " -> PRECONDITION_FAILED");
    assertThat(storedHolder().nonce()).isEqualTo(successor.info().nonce());
    heartbeats().beat();
    assertThat(successor.isHeld()).isTrue();
    successor.release();
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void forceRelease_byNonce_deletesOnlyThatHolding() {
    LockLease held = lockOf("ada").acquire();
    ObjectVersion version = storedVersion();
    DistributedLock operator = lockOf("ops");

    assertThat(operator.forceRelease("not-the-nonce")).isFalse();
    assertThat(storedHolder().nonce()).isEqualTo(held.info().nonce());
    assertThat(operator.forceRelease(held.info().nonce())).isTrue();

    assertThat(operator.inspect()).isEmpty();
    assertThat(logged(DatastoreOperation.DELETE)).containsExactly(mustMatch(version) + " -> DELETED");
    heartbeats().beat();
    assertThat(held.isHeld()).isFalse();
    assertThat(operator.forceRelease(held.info().nonce())).isFalse();
    held.release();
    assertThat(store().log().entries(DatastoreOperation.DELETE)).hasSize(1);
  }

  @Test
  public final void forceRelease_blankNonce_isRejectedAndChangesNothing() {
    LockLease held = lockOf("ada").acquire();
    DistributedLock operator = lockOf("ops");
    long calls = store().log().size();

    assertThatThrownBy(() -> operator.forceRelease(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot force-release " + operator.describe() + ": the nonce is blank");
    assertThat(store().log().size()).isEqualTo(calls);
    assertThat(storedHolder().nonce()).isEqualTo(held.info().nonce());
    held.release();
  }

  @Test
  public final void tryAcquire_busyThenFree() {
    LockLease held = lockOf("ada").acquire();
    DistributedLock other = lockOf("bob");

    assertThat(other.tryAcquire()).isEmpty();
    held.release();
    Optional<LockLease> free = other.tryAcquire();

    assertThat(free).hasValueSatisfying(lease -> assertThat(lease.isHeld()).isTrue());
    assertThat(storedHolder().nonce()).isEqualTo(free.get().info().nonce());
    assertThat(clock().sleeps()).isEmpty();
    free.get().release();
  }

  @Test
  public final void tryAcquire_staleHolder_isTakenOver() {
    LockLease old = lockOf("ada").acquire();
    ObjectVersion stale = storedVersion();
    DistributedLock bob = lockOf("bob");
    assertThat(bob.tryAcquire()).as("a fresh holder").isEmpty();
    clock().advance(TTL.plusSeconds(1));

    Optional<LockLease> taken = bob.tryAcquire();

    assertThat(taken).isPresent();
    assertThat(logged(DatastoreOperation.WRITE)).last().isEqualTo(mustMatch(stale) + " -> WRITTEN");
    taken.get().release();
    old.release();
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void lockKey_neverLeavesTheNamespace() {
    assertThat(KEY.value()).isEqualTo("ns1/.datastore.lock");
    LockLease first = lockOf("ada").acquire();
    assertThat(lockOf("bob").tryAcquire()).isEmpty();
    clock().advance(TTL.plusSeconds(1));
    LockLease second = lockOf("bob").acquire();
    heartbeats().beat();
    first.release();
    second.release();
    LockLease third = lockOf("cy").acquire();
    assertThat(lockOf("ops").forceRelease(third.info().nonce())).isTrue();
    third.release();
    assertThat(lockOf("ops").inspect()).isEmpty();

    assertThat(store().log().entries()).isNotEmpty()
        .allSatisfy(e -> assertThat(e.target()).isEqualTo(KEY.value()));
    assertThat(store().delegate().list("")).isEmpty();
  }

  @Test
  public final void acquire_whileHoldingAnInnerLock_isRejectedBeforeAnyCall() throws IOException {
    Path checkout = Files.createTempDirectory("tierlock-lock-order");
    try {
      DistributedLock lock = lockOf("ada");
      try (PulledExtensionsLock.Section inner = PulledExtensionsLock.builder(checkout).build().acquire()) {
        assertThatThrownBy(lock::acquire)
            .isInstanceOf(LockOrderException.class)
            .hasMessageStartingWith("Cannot acquire " + lock.describe()
                + ": the GLOBAL lock is taken before the PULLED_EXTENSIONS lock")
            .extracting(e -> ((LockOrderException) e).code()).isEqualTo("lock_order");
        assertThatThrownBy(lock::tryAcquire)
            .isInstanceOf(LockOrderException.class)
            .hasMessageContaining("the GLOBAL lock is taken before the PULLED_EXTENSIONS lock");
      }
      assertThat(store().log().entries()).isEmpty();
      lock.acquire().release();
      assertThat(store().delegate().stat(KEY)).isEmpty();
    } finally {
      try (Stream<Path> files = Files.walk(checkout)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
  }

  @Test
  public final void acquireRelease_fourThreads_areMutuallyExclusive() throws Exception {
    LockOptions fast = new LockOptions(Duration.ofSeconds(20), Duration.ofMillis(1), Duration.ofMillis(16), Duration.ofSeconds(60));
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger mostInside = new AtomicInteger();
    AtomicInteger counter = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        DistributedLock lock = LeaseLocks.builder(store(), KEY).options(fast).clock(Clock.systemUTC())
            .sleeper(Sleeper.SYSTEM).random(new SplittableRandom(t)).identity(LockIdentity.of("t" + t + "@h", "h", t))
            .heartbeats(ManualHeartbeats.create()).build();
        workers.add(pool.submit(() -> {
          for (int round = 0; round < ROUNDS; round++) {
            try (LockLease lease = lock.acquire()) {
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
    assertThat(store().delegate().stat(KEY)).isEmpty();
    assertThat(store().log().entries(DatastoreOperation.DELETE)).hasSize(THREADS * ROUNDS)
        .allSatisfy(e -> assertThat(e.outcome()).isEqualTo("DELETED"));
  }
}
