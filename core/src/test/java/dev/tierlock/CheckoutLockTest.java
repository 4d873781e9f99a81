package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckoutLockTest {

  @TempDir Path state;

  private final ManualClock clock = ManualClock.create();

  private CheckoutLock lock() {
    return CheckoutLock.in(state, clock, clock.sleeper());
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
  void acquire_heldByAnotherProcess_pollsUntilTheDeadlineThenTimesOutNamingTheFile() throws IOException {
    CheckoutLock lock = lock();
    try (FileChannel channel = FileChannel.open(lock.lockFile(), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      assertThatThrownBy(() -> lock.acquire(clock.instant().plusSeconds(2), "target"))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessage("Cannot acquire lock \"" + lock.lockFile() + "\": held by an unknown holder; timed out after 2000 ms")
          .extracting(e -> ((LockTimeoutException) e).code()).isEqualTo("lock_timeout");
      assertThat(held.isValid()).isTrue();
    }
    lock.acquire(clock.instant(), "target").close();
  }

  @Test
  void acquire_againOnTheHoldingThread_isANestedTransaction() {
    try (CheckoutLock.Held held = lock().acquire(clock.instant(), "target")) {
      assertThatThrownBy(() -> lock().acquire(clock.instant().plusSeconds(60), "the lockfile"))
          .isInstanceOf(NestedTransactionException.class)
          .hasMessageStartingWith("Cannot start a transaction on the lockfile: this thread is already running one there")
          .extracting(e -> ((NestedTransactionException) e).code()).isEqualTo("nested_transaction");
    }
  }

  @Test
  void acquire_fromAnotherThread_queuesUntilTheHolderReleases() throws Exception {
    CountDownLatch queued = new CountDownLatch(1);
    CheckoutLock.Held held = lock().acquire(clock.instant(), "target");
    CompletableFuture<String> waiter;
    try {
      waiter = CompletableFuture.supplyAsync(() -> {
        try (CheckoutLock.Held mine = lock().onQueued(queued::countDown).acquire(clock.instant().plus(Duration.ofMinutes(1)),
            "target")) {
          return "in";
        }
      });
      assertThat(queued.await(10, TimeUnit.SECONDS)).as("the second run waits in line").isTrue();
      assertThat(waiter).isNotDone();
    } finally {
      held.close();
    }

    assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo("in");
  }

  @Test
  void acquire_whileHoldingTheLockfileLock_isRejected() {
    LocalFileLock lockfileLock = LocalFileLock.at(state.resolve("x.lock"), state.resolve("x"), clock.sleeper());
    try (LocalFileLock.Held inner = lockfileLock.acquire()) {
      assertThatThrownBy(() -> lock().acquire(clock.instant(), "target"))
          .isInstanceOf(LockOrderException.class)
          .extracting(e -> ((LockOrderException) e).code()).isEqualTo("lock_order");
    }
    lock().acquire(clock.instant(), "target").close();
  }
}
