package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.found;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.LockIdentity;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-key claim as writers in one JVM see it; other processes are in {@link FileSystemDatastoreProcessTest}. */
class FileSystemDatastoreLockTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  @TempDir
  Path root;

  private final TestClock clock = TestClock.create();

  @Test
  void write_whileAnotherThreadHoldsTheKey_timesOutNamingTheHolderAndChangesNothing() throws Exception {
    FileSystemDatastore store = open(Duration.ofSeconds(3));
    ObjectVersion old = written(store.write(KEY, body("old"), WriteCondition.none(), ObjectMetadata.EMPTY));
    RootLayout layout = new RootLayout(store.root());
    Path slot = layout.claimSlot(KEY);
    ExecutorService threads = Executors.newSingleThreadExecutor();
    try {
      KeyClaims.Claim held = claim(layout, "another writer's work");
      try (held) {
        Future<Throwable> blocked = threads.submit(() -> failureOf(
            () -> store.write(KEY, body("new"), WriteCondition.mustMatch(old), ObjectMetadata.EMPTY)));
        awaitQueued(slot);
        clock.advance(Duration.ofSeconds(3));

        assertThat(blocked.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS))
            .isExactlyInstanceOf(DatastoreBusyException.class)
            .hasMessageStartingWith("Cannot write object " + KEY + " at " + store.describe() + ": its lock stayed held by pid "
                + ProcessHandle.current().pid() + " on host " + LockIdentity.current().hostname() + " since ")
            .hasMessageContaining("; guards another writer's work) for PT3S (the lock timeout;")
            .hasMessageEndingWith(" a claim seen unchanged for PT5S is taken over); nothing changed")
            .extracting(e -> ((TierlockException) e).code()).isEqualTo("datastore_busy");
        assertThat(text(found(store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES)).bytes())).as("reads take no lock").isEqualTo("old");
        assertThat(store.write(ObjectKey.of("config/other"), body("x"), WriteCondition.none(), ObjectMetadata.EMPTY))
            .as("other keys are not blocked").isInstanceOf(WriteResult.Written.class);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(clock.sleeps()).as("a writer queued in this JVM is woken, it does not poll").isEmpty();
    written(store.write(KEY, body("new"), WriteCondition.mustMatch(old), ObjectMetadata.EMPTY));
    assertThat(KeyClaims.inUse(slot)).isFalse();
    assertThat(slot).as("released claims leave no slot").doesNotExist();
  }

  @Test
  void delete_interruptedWhileWaitingForTheLock_isUnavailableAndKeepsTheInterrupt() throws Exception {
    FileSystemDatastore store = open(Duration.ofSeconds(3));
    written(store.write(KEY, body("old"), WriteCondition.none(), ObjectMetadata.EMPTY));
    RootLayout layout = new RootLayout(store.root());
    ExecutorService threads = Executors.newSingleThreadExecutor();
    try {
      KeyClaims.Claim held = threads.submit(() -> claim(layout, "another writer's work"))
          .get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS);
      try (held) {
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> store.delete(KEY, WriteCondition.none()))
            .isExactlyInstanceOf(DatastoreUnavailableException.class)
            .hasMessage("Cannot delete object " + KEY + " at " + store.describe()
                + ": interrupted while waiting for its lock; nothing changed")
            .hasCauseExactlyInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).as("interrupt flag restored").isTrue();
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(text(found(store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES)).bytes())).isEqualTo("old");
  }

  /** Makes a claim on {@link #KEY} the key's, as a writer of this JVM does inside its change. */
  private static KeyClaims.Claim claim(RootLayout layout, String guards) throws Exception {
    FileSystemDatastoreOptions options = FileSystemDatastoreOptions.defaults();
    KeyClaims.Claim claim = new KeyClaims(layout, new TempFiles(layout.tmpDirectory(), options.clock()), options)
        .prepare(KEY, guards);
    claim.acquire();
    return claim;
  }

  /** Waits, bounded, until a writer queues for the key's claim in this JVM (no sleeping: it spins on the queue). */
  private static void awaitQueued(Path slot) {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(ChildJvm.WAIT_SECONDS);
    while (KeyClaims.queued(slot) == 0) {
      if (System.nanoTime() - giveUp > 0) {
        throw new AssertionError("no writer queued for " + slot + " within " + ChildJvm.WAIT_SECONDS + " s");
      }
      Thread.onSpinWait();
    }
  }

  private static Throwable failureOf(Runnable action) {
    try {
      action.run();
      return new AssertionError("the write succeeded");
    } catch (RuntimeException e) {
      return e;
    }
  }

  @Test
  void options_nonPositiveTakeoverBound_isRefused() {
    FileSystemDatastoreOptions defaults = FileSystemDatastoreOptions.defaults();

    assertThatThrownBy(() -> defaults.withTakeoverAfter(Duration.ZERO))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use filesystem datastore options: takeoverAfter is not positive: PT0S");
    assertThat(defaults.takeoverAfter()).isEqualTo(Duration.ofSeconds(5));
    assertThat(defaults.withTakeoverAfter(Duration.ofSeconds(30)).takeoverAfter()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void options_negativeTimeout_isRefused() {
    FileSystemDatastoreOptions defaults = FileSystemDatastoreOptions.defaults();

    assertThatThrownBy(() -> defaults.withLockTimeout(Duration.ofSeconds(-1)))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use filesystem datastore options: lockTimeout is negative: PT-1S");
    assertThat(defaults.lockTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(open(Duration.ofSeconds(3)).options().lockTimeout()).isEqualTo(Duration.ofSeconds(3));
  }

  private FileSystemDatastore open(Duration timeout) {
    return FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults()
        .withLockTimeout(timeout).withClock(clock).withSleeper(clock.sleeper()));
  }
}
