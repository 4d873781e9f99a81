package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.internal.ChildJvm;
import dev.tierlock.internal.FaultyChannel;
import dev.tierlock.internal.OsLockRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PulledExtensionsLockTest {

  private static final long BOUND_SECONDS = 20;

  @TempDir Path root;
  private Path checkout;
  private ManualClock clock;
  private ExecutorService threads;

  @BeforeEach
  void setUp() throws IOException {
    checkout = Files.createDirectories(root.resolve("checkout"));
    clock = ManualClock.create();
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(LockOrder.innermost()).isNull();
  }

  private PulledExtensionsLock.Builder lockOf(Path dir) {
    return PulledExtensionsLock.builder(dir).environment(Environment.system().withClock(clock).withSleeper(clock.sleeper()))
        .pollInterval(Duration.ofMillis(5));
  }

  private <T> T await(Future<T> future) throws Exception {
    return future.get(BOUND_SECONDS, TimeUnit.SECONDS);
  }

  /** Whether another thread could take the lock right now. */
  private boolean freeForOthers(PulledExtensionsLock lock) throws Exception {
    return await(threads.submit(() -> {
      Optional<PulledExtensionsLock.Held> section = lock.tryAcquire();
      section.ifPresent(PulledExtensionsLock.Held::close);
      return section.isPresent();
    }));
  }

  @Test
  void acquire_holdsUntilClosed_andKeepsTheLockFile() throws Exception {
    PulledExtensionsLock lock = lockOf(checkout).build();

    try (PulledExtensionsLock.Held section = lock.acquire()) {
      assertThat(section.isOpen()).isTrue();
      assertThat(section.lock()).isSameAs(lock);
      assertThat(freeForOthers(lock)).isFalse();
    }

    assertThat(freeForOthers(lock)).isTrue();
    assertThat(lock.lockFile()).isEqualTo(checkout.toRealPath().resolve(".swamp/pulled-extensions.lock"));
    assertThat(lock.lockFile()).exists();
  }

  @Test
  void close_twice_releasesOnce() throws Exception {
    PulledExtensionsLock lock = lockOf(checkout).build();
    PulledExtensionsLock.Held section = lock.acquire();

    section.close();
    section.close();

    assertThat(section.isOpen()).isFalse();
    assertThat(freeForOthers(lock)).isTrue();
  }

  @Test
  void acquire_waiters_getTheLockInArrivalOrder() throws Exception {
    PulledExtensionsLock.Held held = lockOf(checkout).build().acquire();
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<?>> waiters = new java.util.ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      int id = i;
      CountDownLatch queued = new CountDownLatch(1);
      PulledExtensionsLock lock = lockOf(checkout).onQueued(queued::countDown).build();
      waiters.add(threads.submit(() -> {
        try (PulledExtensionsLock.Held section = lock.acquire()) {
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
  void acquire_twoInstancesOnOneCheckout_serialise() throws Exception {
    PulledExtensionsLock first = lockOf(checkout).build();
    CountDownLatch queued = new CountDownLatch(1);
    PulledExtensionsLock second = lockOf(checkout).onQueued(queued::countDown).build();
    AtomicBoolean firstReleased = new AtomicBoolean();

    PulledExtensionsLock.Held held = first.acquire();
    assertThat(freeForOthers(second)).isFalse();
    Future<Boolean> waiter = threads.submit(() -> {
      try (PulledExtensionsLock.Held section = second.acquire()) {
        return firstReleased.get();
      }
    });
    assertThat(queued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    firstReleased.set(true);
    held.close();

    assertThat(await(waiter)).isTrue();
  }

  @Test
  void build_relativeAndAbsoluteSpellings_shareOneLock() throws Exception {
    Path relative = Path.of("").toAbsolutePath().relativize(checkout);
    Path viaLink = Files.createSymbolicLink(root.resolve("link"), checkout);
    PulledExtensionsLock absolute = lockOf(checkout).build();
    PulledExtensionsLock byRelative = lockOf(relative).build();
    PulledExtensionsLock byLink = lockOf(viaLink).build();

    try (PulledExtensionsLock.Held section = absolute.acquire()) {
      assertThat(freeForOthers(byRelative)).isFalse();
      assertThat(freeForOthers(byLink)).isFalse();
    }

    assertThat(byRelative.checkout()).isEqualTo(absolute.checkout()).isEqualTo(byLink.checkout());
    assertThat(byRelative.lockFile()).isEqualTo(absolute.lockFile());
  }

  @Test
  void nested_runsInlineAndReleasesNothing() throws Exception {
    PulledExtensionsLock lock = lockOf(checkout).build();

    try (PulledExtensionsLock.Held outer = lock.acquire()) {
      try (PulledExtensionsLock.Held inner = outer.nested();
          PulledExtensionsLock.Held innermost = inner.nested()) {
        assertThat(innermost.isOpen()).isTrue();
        assertThat(innermost.lock()).isSameAs(lock);
      }
      assertThat(outer.isOpen()).isTrue();
      assertThat(freeForOthers(lock)).isFalse();
    }
    assertThat(freeForOthers(lock)).isTrue();
  }

  @Test
  void nested_ofAClosedSection_isRejected() {
    PulledExtensionsLock.Held section = lockOf(checkout).build().acquire();
    PulledExtensionsLock.Held inner = section.nested();
    inner.close();
    section.close();

    assertThat(inner.isOpen()).isFalse();
    assertThatThrownBy(section::nested)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Cannot enter a nested section of pulled-extensions lock of ")
        .hasMessageEndingWith(": the section is closed");
  }

  @Test
  void acquire_againOnTheHoldingThread_isRejectedAtOnce() throws Exception {
    PulledExtensionsLock lock = lockOf(checkout).build();

    try (PulledExtensionsLock.Held section = lock.acquire()) {
      assertThatThrownBy(lock::acquire)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot acquire " + lock.describe() + ": this thread already holds it; pass the held section and call nested()");
      assertThat(section.isOpen()).isTrue();
      assertThat(freeForOthers(lock)).isFalse();
    }
  }

  @Test
  void acquire_heldInThisJvm_timesOutNamingTheLockFileAndTheHolder() throws Exception {
    PulledExtensionsLock lock = lockOf(checkout).build();
    PulledExtensionsLock impatient = lockOf(checkout).maxWait(Duration.ZERO).build();

    try (PulledExtensionsLock.Held section = lock.acquire()) {
      ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
          () -> await(threads.submit(impatient::acquire)));
      assertThat(failure.getCause())
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageStartingWith("Cannot acquire lock \"" + lock.lockFile() + "\": held by pid " + ProcessHandle.current().pid()
              + " on host " + LockIdentity.current().hostname() + " since " + clock.instant() + "; started ")
          .hasMessageContaining("; guards " + lock.describe() + ")")
          .hasMessageEndingWith("; timed out after 0 ms");
      LockTimeoutException timeout = (LockTimeoutException) failure.getCause();
      assertThat(timeout.code()).isEqualTo("lock_timeout");
      assertThat(timeout.lockKey()).isEqualTo(lock.lockFile().toString());
    }
  }

  @Test
  void acquire_checkoutsSharingAStateDirectory_queueForOneLock() throws Exception {
    // before the registry, the second checkout's busy probe closed its channel and so dropped the first one's lock
    Path state = Files.createDirectories(root.resolve("shared-state"));
    Path otherCheckout = Files.createDirectories(root.resolve("other"));
    PulledExtensionsLock holder = lockOf(otherCheckout).stateDirectory(state).build();
    CountDownLatch queued = new CountDownLatch(1);
    PulledExtensionsLock waiter = lockOf(checkout).stateDirectory(state).maxWait(Duration.ofSeconds(30))
        .onQueued(queued::countDown).build();

    try (PulledExtensionsLock.Held section = holder.acquire()) {
      assertThat(freeForOthers(waiter)).isFalse();
      Future<PulledExtensionsLock.Held> waiting = threads.submit(waiter::acquire);
      assertThat(queued.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("the second checkout queues in this JVM").isTrue();
      assertThat(ChildJvm.probe(holder.lockFile())).as("the first checkout still holds the OS lock").isEqualTo("busy");
      clock.advance(Duration.ofSeconds(31));

      ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> await(waiting));
      assertThat(failure.getCause()).isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining("; guards " + holder.describe() + ")")
          .hasMessageEndingWith("; timed out after 31000 ms");
      assertThat(ChildJvm.probe(holder.lockFile())).isEqualTo("busy");
    }
    assertThat(waiter.lockFile()).isEqualTo(holder.lockFile());
    assertThat(waiter.tryAcquire()).hasValueSatisfying(PulledExtensionsLock.Held::close);
  }

  @Test
  void acquire_heldByAnotherProcess_pollsThroughTheBudget_thenTimesOutNamingThatProcess() throws Exception {
    PulledExtensionsLock waiter = PulledExtensionsLock.builder(checkout)
        .environment(Environment.system().withClock(clock).withSleeper(clock.sleeper())).build();
    Path journal = root.resolve("journal.txt");

    try (ChildJvm child = ChildJvm.start("hold", waiter.lockFile().toString(), "the child's install")) {
      assertThat(child.nextLine()).isEqualTo("locked");

      assertThat(waiter.tryAcquire()).isEmpty();
      assertThatThrownBy(waiter::acquire)
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageStartingWith("Cannot acquire lock \"" + waiter.lockFile() + "\": held by pid " + child.pid() + " on host "
              + LockIdentity.current().hostname() + " since ")
          .hasMessageContaining("; guards the child's install)")
          .hasMessageEndingWith("; timed out after 180000 ms")
          .satisfies(e -> assertThat(((LockTimeoutException) e).waited()).isEqualTo(Duration.ofSeconds(180)));
      assertThat(clock.sleeps()).hasSize(1800).allSatisfy(d -> assertThat(d).isEqualTo(Duration.ofMillis(100)));

      // the exclusion itself: a section of this process that waits writes only after the child released
      PulledExtensionsLock patient = PulledExtensionsLock.builder(checkout)
          .environment(Environment.system().withSleeper(d -> Thread.yield())).build();
      Future<Void> parent = threads.submit(() -> patient.withLock(section -> {
        append(journal, "parent");
        return null;
      }));
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
    assertThat(waiter.tryAcquire()).hasValueSatisfying(PulledExtensionsLock.Held::close);
  }

  private static void append(Path file, String line) {
    try {
      Files.writeString(file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void acquire_waiterBehindATimedOutWaiter_stillWaitsForTheHolder() throws Exception {
    PulledExtensionsLock.Held held = lockOf(checkout).build().acquire();
    CountDownLatch firstQueued = new CountDownLatch(1);
    CountDownLatch secondQueued = new CountDownLatch(1);
    PulledExtensionsLock shortWait = lockOf(checkout).maxWait(Duration.ofSeconds(10)).onQueued(firstQueued::countDown).build();
    PulledExtensionsLock longWait = lockOf(checkout).onQueued(secondQueued::countDown).build();
    AtomicBoolean holderReleased = new AtomicBoolean();

    Future<?> first = threads.submit(() -> shortWait.acquire().close());
    assertThat(firstQueued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    Future<Boolean> second = threads.submit(() -> {
      try (PulledExtensionsLock.Held section = longWait.acquire()) {
        return holderReleased.get();
      }
    });
    assertThat(secondQueued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    clock.advance(Duration.ofSeconds(11));

    ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> await(first));
    assertThat(failure.getCause()).isInstanceOf(LockTimeoutException.class)
        .hasMessageContaining("pulled-extensions.lock")
        .hasMessageEndingWith("timed out after 11000 ms");
    assertThat(second.isDone()).isFalse();
    holderReleased.set(true);
    held.close();

    assertThat(await(second)).isTrue();
  }

  @Test
  void acquire_independentCheckouts_doNotContend() throws Exception {
    Path otherCheckout = Files.createDirectories(root.resolve("other"));
    PulledExtensionsLock lock = lockOf(checkout).build();
    PulledExtensionsLock other = lockOf(otherCheckout).build();

    try (PulledExtensionsLock.Held section = lock.acquire()) {
      assertThat(freeForOthers(other)).isTrue();
      assertThat(freeForOthers(lock)).isFalse();
    }
  }

  @Test
  void acquire_underTheGlobalLevel_isAllowed() {
    PulledExtensionsLock lock = lockOf(checkout).build();

    try (LockOrder.Ticket global = LockOrder.enter(LockLevel.GLOBAL, "the global lock");
        PulledExtensionsLock.Held section = lock.acquire()) {
      assertThat(LockOrder.innermost()).isEqualTo(LockLevel.PULLED_EXTENSIONS);
    }
  }

  @Test
  void acquire_underTheGlobalAndCheckoutLevels_isAllowed() {
    PulledExtensionsLock lock = lockOf(checkout).build();

    try (LockOrder.Ticket global = LockOrder.enter(LockLevel.GLOBAL, "the global lock");
        LockOrder.Ticket transaction = LockOrder.enter(LockLevel.CHECKOUT, "the transaction lock");
        PulledExtensionsLock.Held section = lock.acquire()) {
      assertThat(LockOrder.innermost()).isEqualTo(LockLevel.PULLED_EXTENSIONS);
    }
  }

  @Test
  void tryAcquire_busyThenFree() throws Exception {
    PulledExtensionsLock lock = lockOf(checkout).build();
    PulledExtensionsLock.Held held = lock.acquire();

    Optional<PulledExtensionsLock.Held> busy = await(threads.submit(lock::tryAcquire));
    held.close();
    Optional<PulledExtensionsLock.Held> free = lock.tryAcquire();

    assertThat(busy).isEmpty();
    assertThat(free).hasValueSatisfying(section -> {
      assertThat(section.isOpen()).isTrue();
      section.close();
    });
  }

  @Test
  void acquire_failingLockFile_freesTheCheckout() throws Exception {
    PulledExtensionsLock broken = lockOf(checkout).registry(OsLockRegistry.using(file -> {
      throw new IOException("disk on fire");
    })).build();

    assertThatThrownBy(broken::acquire)
        .isInstanceOf(LocalFileException.class)
        .hasMessage("Cannot lock " + broken.lockFile() + ": disk on fire")
        .hasCauseInstanceOf(IOException.class)
        .extracting(e -> ((LocalFileException) e).code()).isEqualTo("local_io");
    assertThat(LockOrder.innermost()).isNull();
    assertThat(freeForOthers(lockOf(checkout).build())).isTrue();
  }

  @Test
  void acquire_holderThatCannotBeWritten_freesTheCheckout() throws Exception {
    Set<FaultyChannel.Fault> faults = FaultyChannel.faults();
    faults.add(FaultyChannel.Fault.WRITE);
    PulledExtensionsLock broken = lockOf(checkout).registry(OsLockRegistry.using(FaultyChannel.opener(faults))).build();

    assertThatThrownBy(broken::acquire)
        .isInstanceOf(LocalFileException.class)
        .hasMessage("Cannot lock " + broken.lockFile() + ": write refused");
    assertThat(freeForOthers(lockOf(checkout).build())).isTrue();
    assertThat(ChildJvm.probe(broken.lockFile())).isEqualTo("free");
  }

  @Test
  void close_failingUnlock_stillFreesTheCheckout() throws Exception {
    Set<FaultyChannel.Fault> faults = FaultyChannel.faults();
    PulledExtensionsLock broken = lockOf(checkout).registry(OsLockRegistry.using(FaultyChannel.opener(faults))).build();
    PulledExtensionsLock.Held section = broken.acquire();
    faults.add(FaultyChannel.Fault.TRUNCATE);

    assertThatThrownBy(section::close)
        .isInstanceOf(LocalFileException.class)
        .hasMessage("Cannot unlock " + broken.lockFile() + ": truncate refused")
        .extracting(e -> ((LocalFileException) e).code()).isEqualTo("local_io");
    assertThat(section.isOpen()).isFalse();
    assertThat(freeForOthers(lockOf(checkout).build())).isTrue();
  }

  @Test
  void acquire_interruptedWhileQueued_leavesTheQueue() throws Exception {
    PulledExtensionsLock.Held held = lockOf(checkout).build().acquire();
    CountDownLatch queued = new CountDownLatch(1);
    AtomicReference<Thread> waitingThread = new AtomicReference<>();
    PulledExtensionsLock waiter = lockOf(checkout).onQueued(queued::countDown).build();
    Future<Throwable> waiting = threads.submit(() -> {
      waitingThread.set(Thread.currentThread());
      try {
        waiter.acquire().close();
        return new AssertionError("acquired despite the interrupt");
      } catch (InterruptedOperationException e) {
        return Thread.currentThread().isInterrupted() ? e : new AssertionError("interrupt flag not restored", e);
      }
    });
    assertThat(queued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();

    waitingThread.get().interrupt();
    Throwable failure = await(waiting);
    held.close();

    assertThat(failure).isInstanceOf(InterruptedOperationException.class)
        .hasMessage("Cannot acquire " + waiter.describe() + ": the thread was interrupted")
        .hasCauseInstanceOf(InterruptedException.class)
        .extracting(e -> ((InterruptedOperationException) e).code()).isEqualTo("interrupted");
    assertThat(freeForOthers(waiter)).isTrue();
  }

  @Test
  void withLock_releasesAfterTheAction() throws Exception {
    PulledExtensionsLock lock = lockOf(checkout).build();

    String result = lock.withLock(section -> section.isOpen() ? "inside" : "outside");

    assertThat(result).isEqualTo("inside");
    assertThat(freeForOthers(lock)).isTrue();
  }

  @Test
  void build_missingCheckout_isRejected() {
    Path missing = root.resolve("missing");

    assertThatThrownBy(() -> PulledExtensionsLock.builder(missing).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot lock checkout " + missing + ": it does not exist");
    assertThat(missing).doesNotExist();
  }

  @Test
  void builder_badDurations_areRejected() {
    PulledExtensionsLock.Builder builder = PulledExtensionsLock.builder(checkout);

    assertThatThrownBy(() -> builder.maxWait(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use pulled-extensions lock maxWait PT-1S: it is negative");
    assertThatThrownBy(() -> builder.pollInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use pulled-extensions lock pollInterval PT0S: it must be positive");
  }
}
