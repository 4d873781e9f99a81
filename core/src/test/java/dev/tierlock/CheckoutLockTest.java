package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.internal.ChildJvm;
import dev.tierlock.internal.OsLockRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckoutLockTest {

  private static final long BOUND_SECONDS = 20;

  @TempDir Path state;

  private final ManualClock clock = ManualClock.create();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(LockOrder.innermost()).isNull();
  }

  private CheckoutLock lock() {
    return CheckoutLock.in(state, clock, clock.sleeper());
  }

  private <T> T await(Future<T> future) throws Exception {
    return future.get(BOUND_SECONDS, TimeUnit.SECONDS);
  }

  /** Whether another thread could take the lock right now. */
  private boolean freeForOthers() throws Exception {
    return await(threads.submit(() -> {
      Optional<CheckoutLock.Held> held = lock().tryAcquire("a prober");
      held.ifPresent(CheckoutLock.Held::close);
      return held.isPresent();
    }));
  }

  @Test
  void acquire_thenClose_letsTheNextRunIn_andKeepsTheLockFile() {
    CheckoutLock lock = lock();

    lock.acquire(clock.instant(), "target").close();
    try (CheckoutLock.Held again = lock().acquire(clock.instant(), "target")) {
      assertThat(lock.lockFile()).exists().hasFileName(CheckoutLock.FILE_NAME);
    }
    assertThat(lock.lockFile()).exists();
  }

  @Test
  void acquire_heldByAnotherProcess_excludesThisOne_andTimesOutNamingTheHolder() throws Exception {
    CheckoutLock lock = lock();
    Path journal = state.resolve("journal.txt");
    String host = LockIdentity.current().hostname();

    try (ChildJvm child = ChildJvm.start("hold", lock.lockFile().toString(), "the child's run")) {
      assertThat(child.nextLine()).isEqualTo("locked");

      assertThat(lock.tryAcquire("target")).isEmpty();
      assertThatThrownBy(() -> lock.acquire(clock.instant().plusSeconds(2), "target"))
          .isExactlyInstanceOf(LockTimeoutException.class)
          .hasMessageStartingWith("Cannot acquire lock \"" + lock.lockFile() + "\": held by pid " + child.pid() + " on host "
              + host + " since ")
          .hasMessageContaining("; started " + ProcessHandle.of(child.pid()).orElseThrow().info().startInstant().orElseThrow())
          .hasMessageContaining("; guards the child's run)")
          .hasMessageEndingWith("; timed out after 2000 ms")
          .satisfies(e -> assertThat(((LockTimeoutException) e).lockKey()).isEqualTo(lock.lockFile().toString()))
          .extracting(e -> ((LockTimeoutException) e).code()).isEqualTo("lock_timeout");
      assertThat(clock.sleeps()).hasSize(20).allSatisfy(d -> assertThat(d).isEqualTo(CheckoutLock.POLL));

      // the exclusion itself: a run of this process that waits writes only after the child released
      CheckoutLock patient = CheckoutLock.in(state, Clock.systemUTC(), d -> Thread.yield());
      Future<Void> parent = threads.submit(() -> {
        try (CheckoutLock.Held held = patient.acquire(Clock.systemUTC().instant().plusSeconds(ChildJvm.WAIT_SECONDS), "parent")) {
          Files.writeString(journal, "parent\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        return null;
      });
      child.send("append " + journal + " child holds");
      assertThat(child.nextLine()).isEqualTo("appended");
      child.send("append " + journal + " child still holds");
      assertThat(child.nextLine()).isEqualTo("appended");
      assertThat(parent).isNotDone();
      child.send("release");
      assertThat(child.nextLine()).isEqualTo("released");
      await(parent);
      assertThat(child.awaitExit()).isZero();
    }
    assertThat(Files.readAllLines(journal)).containsExactly("child holds", "child still holds", "parent");
    lock.acquire(clock.instant(), "target").close();
  }

  @Test
  void acquire_heldInThisJvm_timesOutNamingTheHolder_andLeavesTheQueue() throws Exception {
    CountDownLatch queued = new CountDownLatch(1);
    try (CheckoutLock.Held held = lock().acquire(clock.instant(), "the first run")) {
      Future<CheckoutLock.Held> waiter = threads.submit(() -> lock().onQueued(queued::countDown)
          .acquire(clock.instant().plusSeconds(10), "the second run"));
      assertThat(queued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
      clock.advance(Duration.ofSeconds(11));

      ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> await(waiter));
      assertThat(failure.getCause())
          .isExactlyInstanceOf(LockTimeoutException.class)
          .hasMessageStartingWith("Cannot acquire lock \"" + lock().lockFile() + "\": held by pid " + ProcessHandle.current().pid()
              + " on host ")
          .hasMessageContaining(" since " + clock.instant().minusSeconds(11) + "; started ")
          .hasMessageContaining("; guards transaction lock " + lock().lockFile() + " for the first run)")
          .hasMessageEndingWith("; timed out after 11000 ms");
      assertThat(OsLockRegistry.shared().queued(lock().lockFile())).isZero();
      assertThat(freeForOthers()).isFalse();
    }
    assertThat(freeForOthers()).isTrue();
    assertThat(OsLockRegistry.shared().inUse(lock().lockFile())).isFalse();
  }

  @Test
  void acquire_againOnTheHoldingThread_isANestedTransaction() throws Exception {
    try (CheckoutLock.Held held = lock().acquire(clock.instant(), "target")) {
      assertThatThrownBy(() -> lock().acquire(clock.instant().plusSeconds(60), "the lockfile"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot start a transaction on the lockfile: this thread is already running one there; join it"
              + " with TransactionContext.run instead");
      assertThatThrownBy(() -> lock().tryAcquire("the lockfile"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("Cannot start a transaction on the lockfile: this thread is already running one there");
      assertThat(freeForOthers()).as("the rejected re-entry released nothing").isFalse();
      assertThat(LockOrder.innermost()).isEqualTo(LockLevel.CHECKOUT);
    }
    assertThat(freeForOthers()).isTrue();
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void acquire_waiters_getTheLockInArrivalOrder() throws Exception {
    CheckoutLock.Held held = lock().acquire(clock.instant(), "first");
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<?>> waiters = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      int id = i;
      CountDownLatch queued = new CountDownLatch(1);
      CheckoutLock lock = lock().onQueued(queued::countDown);
      waiters.add(threads.submit(() -> {
        try (CheckoutLock.Held mine = lock.acquire(clock.instant().plus(Duration.ofMinutes(1)), "run " + id)) {
          order.add(id);
        }
      }));
      assertThat(queued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    }

    held.close();
    for (Future<?> waiter : waiters) {
      await(waiter);
    }

    assertThat(order).containsExactly(1, 2, 3);
  }

  @Test
  void acquire_interruptedWhileQueued_leavesTheQueue() throws Exception {
    CountDownLatch queued = new CountDownLatch(1);
    AtomicReference<Thread> waiting = new AtomicReference<>();
    try (CheckoutLock.Held held = lock().acquire(clock.instant(), "first")) {
      Future<Throwable> waiter = threads.submit(() -> {
        waiting.set(Thread.currentThread());
        try {
          lock().onQueued(queued::countDown).acquire(clock.instant().plus(Duration.ofMinutes(1)), "second").close();
          return new AssertionError("acquired despite the interrupt");
        } catch (InterruptedOperationException e) {
          return Thread.currentThread().isInterrupted() ? e : new AssertionError("interrupt flag not restored", e);
        }
      });
      assertThat(queued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
      waiting.get().interrupt();

      assertThat(await(waiter)).isInstanceOf(InterruptedOperationException.class)
          .hasMessage("Cannot acquire transaction lock " + lock().lockFile() + ": the thread was interrupted")
          .hasCauseInstanceOf(InterruptedException.class);
      assertThat(OsLockRegistry.shared().queued(lock().lockFile())).isZero();
    }
    assertThat(freeForOthers()).isTrue();
  }

  @Test
  void acquire_lockFileThatCannotBeOpened_failsAndFreesEverything() throws Exception {
    Path file = lock().lockFile();
    CheckoutLock broken = CheckoutLock.of(file, LockLevel.CHECKOUT, "transaction lock " + file, CheckoutLock.POLL, clock,
        clock.sleeper(), OsLockRegistry.using(f -> {
          throw new IOException("disk on fire");
        }), () -> { }, CheckoutLock::nestedTransaction);

    assertThatThrownBy(() -> broken.acquire(clock.instant().plusSeconds(5), "target"))
        .isExactlyInstanceOf(LocalFileException.class)
        .hasMessage("Cannot lock " + file + ": disk on fire")
        .hasCauseExactlyInstanceOf(IOException.class)
        .extracting(e -> ((LocalFileException) e).code()).isEqualTo("local_io");
    assertThatThrownBy(() -> broken.tryAcquire("target"))
        .isExactlyInstanceOf(LocalFileException.class)
        .hasMessage("Cannot lock " + file + ": disk on fire");

    assertThat(LockOrder.innermost()).isNull();
    assertThat(freeForOthers()).isTrue();
  }

  @Test
  void close_onAnotherThread_freesTheLockAndTheLevelOfTheThreadThatTookIt() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      CheckoutLock.Held held = pool.submit(() -> lock().acquire(clock.instant(), "a pool task")).get(BOUND_SECONDS, TimeUnit.SECONDS);
      assertThat(freeForOthers()).isFalse();

      held.close();

      assertThat(freeForOthers()).isTrue();
      assertThat(pool.submit(LockOrder::innermost).get(BOUND_SECONDS, TimeUnit.SECONDS))
          .as("the pool thread keeps no level").isNull();
      pool.submit(() -> lock().acquire(clock.instant(), "the next pool task").close()).get(BOUND_SECONDS, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void acquire_whileHoldingAnInnerLevel_isRejected() {
    try (LockOrder.Ticket inner = LockOrder.enter(LockLevel.PULLED_EXTENSIONS, "an inner lock")) {
      assertThatThrownBy(() -> lock().acquire(clock.instant(), "target"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("Cannot acquire transaction lock " + lock().lockFile()
              + ": the CHECKOUT lock is taken before the PULLED_EXTENSIONS lock");
    }
    lock().acquire(clock.instant(), "target").close();
  }
}
