package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.LockIdentity;
import dev.tierlock.Sleeper;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.TestClock;
import java.net.URI;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyLocksTest {

  private static final ObjectKey KEY = ObjectKey.of("config/k.json");

  @TempDir
  Path dir;

  private final TestClock clock = TestClock.create();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  private <T> T await(Future<T> future) throws Exception {
    return future.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void acquire_heldByAnotherProcess_excludesThisOne_andNamesItsHolder() throws Exception {
    RootLayout layout = new RootLayout(dir.toRealPath());
    Path file = layout.lockFile(KEY);
    Path journal = dir.resolve("journal.txt");

    try (ChildJvm child = ChildJvm.start("hold", dir.toString(), KEY.value())) {
      assertThat(child.nextLine()).isEqualTo("locked");

      assertThat(locks(Duration.ZERO).acquire(file)).isEmpty();
      assertThat(locks(Duration.ofMillis(200)).acquire(file)).isEmpty();
      assertThat(clock.sleeps()).startsWith(Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(4))
          .allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofMillis(50)));
      assertThat(clock.slept()).isEqualTo(Duration.ofMillis(200));
      assertThat(locks(Duration.ZERO).holder(file)).hasValueSatisfying(holder -> assertThat(holder)
          .startsWith("pid " + child.pid() + " on host " + LockIdentity.current().hostname() + " since ")
          .contains("; started " + ProcessHandle.of(child.pid()).orElseThrow().info().startInstant().orElseThrow())
          .endsWith("; guards key lock " + file + ")"));
      assertThat(KeyLocks.inUse(file)).isFalse();

      // the exclusion itself: a writer of this process that waits writes only after the child released
      KeyLocks patient = new KeyLocks(new FileSystemDatastoreOptions(Duration.ofSeconds(ChildJvm.WAIT_SECONDS),
          Clock.systemUTC(), yielding()));
      Future<Void> parent = threads.submit(() -> {
        try (KeyLocks.Held held = patient.acquire(file).orElseThrow()) {
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
      assertThat(child.awaitExit().code()).isZero();
    }
    assertThat(Files.readAllLines(journal)).containsExactly("child holds", "child still holds", "parent");
    assertThat(locks(Duration.ZERO).holder(file)).as("release empties the lock file").isEmpty();
  }

  @Test
  void acquire_heldInThisJvm_queuesUntilTheTimeoutOnTheInjectedClock() throws Exception {
    Path file = dir.resolve("k.lock");
    KeyLocks.Held held = new KeyLocks(FileSystemDatastoreOptions.defaults()).acquire(file, "the first writer").orElseThrow();
    CountDownLatch queued = new CountDownLatch(1);
    try (held) {
      KeyLocks waiting = new KeyLocks(new FileSystemDatastoreOptions(Duration.ofMillis(200), clock, clock.sleeper()),
          queued::countDown);
      Future<Optional<KeyLocks.Held>> second = threads.submit(() -> waiting.acquire(file));
      assertThat(queued.await(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      clock.advance(Duration.ofMillis(200));

      assertThat(await(second)).isEmpty();
      assertThat(clock.sleeps()).as("a queued waiter is woken, it does not poll").isEmpty();
      assertThat(waiting.holder(file)).hasValueSatisfying(holder -> assertThat(holder)
          .startsWith("pid " + ProcessHandle.current().pid() + " on host ")
          .endsWith("; guards the first writer)"));
    }
    assertThat(KeyLocks.inUse(file)).isFalse();
  }

  @Test
  void acquire_zeroTimeoutBehindAnotherThread_triesOnce() throws Exception {
    Path file = dir.resolve("k.lock");
    KeyLocks.Held held = new KeyLocks(FileSystemDatastoreOptions.defaults()).acquire(file).orElseThrow();
    try (held) {
      assertThat(await(threads.submit(() -> locks(Duration.ZERO).acquire(file)))).isEmpty();
      assertThat(clock.sleeps()).isEmpty();
    }
  }

  @Test
  void acquire_byTheThreadHoldingIt_isRejected_andKeepsTheLock() throws Exception {
    Path file = dir.resolve("k.lock");
    KeyLocks locks = locks(Duration.ofSeconds(1));

    try (KeyLocks.Held held = locks.acquire(file).orElseThrow()) {
      assertThatThrownBy(() -> locks.acquire(file))
          .isExactlyInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot lock " + file + ": this thread holds it already, and key locks do not re-enter");
      assertThat(await(threads.submit(() -> locks(Duration.ZERO).acquire(file)))).isEmpty();
    }
    assertThat(KeyLocks.inUse(file)).isFalse();
  }

  @Test
  void acquire_afterRelease_succeedsAndReleasesEverything() throws Exception {
    Path file = dir.resolve("locks/k.lock");
    KeyLocks locks = locks(Duration.ofSeconds(1));

    KeyLocks.Held first = locks.acquire(file).orElseThrow();
    assertThat(KeyLocks.inUse(file)).isTrue();
    first.close();
    first.close();
    KeyLocks.Held second = locks.acquire(file).orElseThrow();
    try (second) {
      assertThat(file).exists();
      assertThat(locks.excludesProcesses()).isTrue();
    }
    assertThat(KeyLocks.inUse(file)).isFalse();
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void acquire_interruptedWhilePollingAnotherProcess_throwsAndReleasesEverything() throws Exception {
    RootLayout layout = new RootLayout(dir.toRealPath());
    Path file = layout.lockFile(KEY);

    try (ChildJvm child = ChildJvm.start("hold", dir.toString(), KEY.value())) {
      assertThat(child.nextLine()).isEqualTo("locked");
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> locks(Duration.ofSeconds(1)).acquire(file))
          .isExactlyInstanceOf(InterruptedException.class)
          .hasMessageContaining("Interrupted before a test-clock sleep");
      assertThat(KeyLocks.inUse(file)).isFalse();
      child.send("release");
      assertThat(child.nextLine()).isEqualTo("released");
    }
  }

  @Test
  void acquire_interruptedWhileQueued_throwsAndReleasesEverything() throws Exception {
    Path file = dir.resolve("k.lock");
    KeyLocks.Held held = new KeyLocks(FileSystemDatastoreOptions.defaults()).acquire(file).orElseThrow();
    try (held) {
      Future<Throwable> waiter = threads.submit(() -> {
        Thread.currentThread().interrupt();
        try {
          locks(Duration.ofSeconds(1)).acquire(file);
          return new AssertionError("acquired despite the interrupt");
        } catch (InterruptedException e) {
          return e;
        }
      });
      assertThat(await(waiter)).isInstanceOf(InterruptedException.class);
    }
    assertThat(KeyLocks.inUse(file)).isFalse();
  }

  @Test
  void acquire_onAProviderThatCannotLockFiles_fallsBackToTheInJvmQueue() throws Exception {
    // the JDK's runtime image file system is read-only: it cannot open a channel to lock
    Path file = FileSystems.getFileSystem(URI.create("jrt:/")).getPath("/modules/java.base/tierlock.lock");
    KeyLocks locks = locks(Duration.ofMillis(10));

    KeyLocks.Held held = locks.acquire(file).orElseThrow();
    try (held) {
      assertThat(locks.excludesProcesses()).isFalse();
      assertThat(await(threads.submit(() -> locks(Duration.ZERO).acquire(file)))).isEmpty();
      assertThat(locks.holder(file)).hasValueSatisfying(h -> assertThat(h).startsWith("pid " + ProcessHandle.current().pid()));
    }
    KeyLocks.Held again = locks.acquire(file).orElseThrow();
    again.close();
    assertThat(KeyLocks.inUse(file)).isFalse();
  }

  private KeyLocks locks(Duration timeout) {
    return new KeyLocks(new FileSystemDatastoreOptions(timeout, clock, clock.sleeper()));
  }

  private static Sleeper yielding() {
    return d -> Thread.yield();
  }
}
