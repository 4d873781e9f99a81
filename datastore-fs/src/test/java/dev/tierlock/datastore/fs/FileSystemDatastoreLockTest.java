package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.found;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.LockfileCodec;
import dev.tierlock.spi.DatastoreUnavailableException;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-key lock as writers in one JVM see it; other processes are in {@link FileSystemDatastoreProcessTest}. */
class FileSystemDatastoreLockTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  @TempDir
  Path root;

  private final TestClock clock = TestClock.create();

  @Test
  void write_whileAnotherInstanceHoldsTheKey_timesOutAndChangesNothing() throws Exception {
    FileSystemDatastore store = open(Duration.ofSeconds(3));
    ObjectVersion old = written(store.write(KEY, body("old"), WriteCondition.none(), ObjectMetadata.EMPTY));
    RootLayout layout = new RootLayout(store.root());

    KeyLocks.Held held = new KeyLocks(FileSystemDatastoreOptions.defaults()).acquire(layout.lockFile(KEY)).orElseThrow();
    try (held) {
      assertThatThrownBy(() -> store.write(KEY, body("new"), WriteCondition.mustMatch(old), ObjectMetadata.EMPTY))
          .isExactlyInstanceOf(DatastoreUnavailableException.class)
          .hasMessage("Cannot write object " + KEY + " at " + store.describe()
              + ": its lock stayed held by another writer for PT3S (the lock timeout); nothing changed")
          .extracting(e -> ((TierlockException) e).code()).isEqualTo("datastore_unavailable");
      assertThat(text(found(store.read(KEY, ReadCondition.always(), LockfileCodec.MAX_BYTES)).bytes())).as("reads take no lock").isEqualTo("old");
      assertThat(store.write(ObjectKey.of("config/other"), body("x"), WriteCondition.none(), ObjectMetadata.EMPTY))
          .as("other keys are not blocked").isInstanceOf(WriteResult.Written.class);
    }
    assertThat(clock.sleeps().stream().reduce(Duration.ZERO, Duration::plus)).isEqualTo(Duration.ofSeconds(3));
    written(store.write(KEY, body("new"), WriteCondition.mustMatch(old), ObjectMetadata.EMPTY));
    assertThat(KeyLocks.inUse(layout.lockFile(KEY))).isFalse();
  }

  @Test
  void delete_interruptedWhileWaitingForTheLock_isUnavailableAndKeepsTheInterrupt() throws Exception {
    FileSystemDatastore store = open(Duration.ofSeconds(3));
    written(store.write(KEY, body("old"), WriteCondition.none(), ObjectMetadata.EMPTY));
    RootLayout layout = new RootLayout(store.root());

    KeyLocks.Held held = new KeyLocks(FileSystemDatastoreOptions.defaults()).acquire(layout.lockFile(KEY)).orElseThrow();
    try (held) {
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> store.delete(KEY, WriteCondition.none()))
          .isExactlyInstanceOf(DatastoreUnavailableException.class)
          .hasMessage("Cannot delete object " + KEY + " at " + store.describe()
              + ": interrupted while waiting for its lock; nothing changed")
          .hasCauseExactlyInstanceOf(InterruptedException.class);
      assertThat(Thread.interrupted()).as("interrupt flag restored").isTrue();
    }
    assertThat(text(found(store.read(KEY, ReadCondition.always(), LockfileCodec.MAX_BYTES)).bytes())).isEqualTo("old");
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
