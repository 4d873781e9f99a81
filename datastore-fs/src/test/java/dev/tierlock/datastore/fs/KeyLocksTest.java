package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.LockIdentity;
import dev.tierlock.internal.OsLockRegistry;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.TestClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The OS lock of earlier versions, as a writer of this version takes it beside its claim. */
class KeyLocksTest {

  private static final ObjectKey KEY = ObjectKey.of("config/k.json");
  private static final String CLAIM_GUARDS =
      "claim 0b7c1c6e-9a51-4d1e-8f5c-3c1f2a4b5d6e of object config/k.json at file:///tier/";

  @TempDir
  Path dir;

  private final TestClock clock = TestClock.create();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void acquire_heldByAnEarlierVersionsWriter_isBusyAtTheDeadline_namingIt_andExcludesUntilItReleases() throws Exception {
    Path file = new RootLayout(dir.toRealPath()).lockFile(KEY);
    Path journal = dir.resolve("journal.txt");

    try (ChildJvm child = ChildJvm.start("hold", dir.toString(), KEY.value())) {
      assertThat(child.nextLine()).isEqualTo("locked");

      KeyLocks.Taken busy = new KeyLocks(options(clock, clock.sleeper()))
          .acquire(file, CLAIM_GUARDS, clock.instant().plus(Duration.ofMillis(200)));

      assertThat(busy).isInstanceOfSatisfying(KeyLocks.Taken.Busy.class, b -> assertThat(b.holder())
          .startsWith("pid " + child.pid() + " on host " + LockIdentity.current().hostname() + " since ")
          .endsWith("; guards key lock " + file + ")"));
      assertThat(clock.sleeps()).startsWith(Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(4))
          .allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofMillis(50)));
      assertThat(clock.slept()).as("an earlier version's writer is never taken over").isEqualTo(Duration.ofMillis(200));

      // the exclusion itself: a writer of this version that waits writes only after the child released
      KeyLocks patient = new KeyLocks(options(Clock.systemUTC(), d -> Thread.yield()));
      Future<Void> parent = threads.submit(() -> {
        KeyLocks.Taken taken = patient.acquire(file, CLAIM_GUARDS, Instant.now().plusSeconds(ChildJvm.WAIT_SECONDS));
        try (KeyLocks.Held held = ((KeyLocks.Taken.Locked) taken).held()) {
          Files.writeString(journal, "parent\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        return null;
      });
      child.send("append " + journal + " child holds");
      assertThat(child.nextLine()).isEqualTo("appended");
      assertThat(parent).isNotDone();
      child.send("release");
      assertThat(child.nextLine()).isEqualTo("released");
      parent.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(child.awaitExit().code()).isZero();
    }
    assertThat(Files.readAllLines(journal)).containsExactly("child holds", "parent");
    assertThat(new KeyLocks(options(clock, clock.sleeper())).holder(file)).as("release empties the lock file").isEmpty();
  }

  @Test
  void acquire_heldByAWriterOfThisVersion_isSkippedAtOnce_forItsClaimWasTakenOver() throws Exception {
    Path file = dir.resolve("k.lock");
    Future<OsLockRegistry.Held> holder = threads.submit(() -> {
      OsLockRegistry.Attempt attempt = OsLockRegistry.shared().tryAcquire(file, CLAIM_GUARDS, Clock.systemUTC());
      return ((OsLockRegistry.Attempt.Acquired) attempt).lock();
    });
    OsLockRegistry.Held held = holder.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS);
    try {
      KeyLocks.Taken taken = new KeyLocks(options(clock, clock.sleeper()))
          .acquire(file, "claim of the taker", clock.instant().plusSeconds(10));

      assertThat(taken).isInstanceOf(KeyLocks.Taken.Skipped.class);
      assertThat(clock.sleeps()).isEmpty();
    } finally {
      threads.submit(() -> {
        held.release();
        return null;
      }).get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS);
    }
  }

  @Test
  void acquire_free_locksWritesTheGuardsAndReleases() throws Exception {
    Path file = dir.resolve("locks/k.lock");
    KeyLocks locks = new KeyLocks(options(clock, clock.sleeper()));

    KeyLocks.Taken taken = locks.acquire(file, CLAIM_GUARDS, clock.instant());

    assertThat(taken).isInstanceOf(KeyLocks.Taken.Locked.class);
    try (KeyLocks.Held held = ((KeyLocks.Taken.Locked) taken).held()) {
      assertThat(locks.holder(file)).hasValueSatisfying(h -> assertThat(h).endsWith("; guards " + CLAIM_GUARDS + ")"));
      assertThatThrownBy(() -> locks.acquire(file, CLAIM_GUARDS, clock.instant()))
          .isExactlyInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot lock " + file + ": this thread holds it already");
    }
    assertThat(OsLockRegistry.shared().inUse(file)).isFalse();
    assertThat(clock.sleeps()).isEmpty();
  }

  private static FileSystemDatastoreOptions options(Clock clock, dev.tierlock.Sleeper sleeper) {
    return new FileSystemDatastoreOptions(Duration.ofSeconds(10), clock, sleeper);
  }
}
