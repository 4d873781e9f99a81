package dev.tierlock.datastore.fs;

import dev.tierlock.Sleeper;
import dev.tierlock.internal.OsLockRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Exclusive per-key locks that hold across threads and processes, taken through core's {@link
 * OsLockRegistry}: a fair in-JVM queue per lock file, then an OS lock on that file through the
 * registry's one channel to it, so that no second channel of this JVM is ever opened on (and then
 * closed over) a lock file another thread holds. The holder writes who it is into the lock file,
 * and {@link #holder} reads it back for a busy error.
 *
 * <p>A writer waits until the deadline measured on the injected {@link Clock}: queued behind the
 * writers of this JVM (woken when its turn comes), then polling the OS lock with pauses of 1 ms
 * doubling to 50 ms spent through the injected {@link Sleeper}; a lock that stays busy yields
 * empty. The OS frees the lock of a process that dies, so a crashed writer never blocks the others.
 * Lock files are never deleted (deleting one would race with a process that has it open).
 *
 * <p>When the file system provider cannot lock files (a zip or in-memory file system), only the
 * in-JVM queue is taken: writers in this JVM still exclude each other, writers in other processes do
 * not. An I/O error from the OS lock (such as a network mount without a lock service) is not a
 * reason to fall back; it propagates. Thread-safe.
 */
final class KeyLocks {

  private static final Duration FIRST_PAUSE = Duration.ofMillis(1);
  private static final Duration MAX_PAUSE = Duration.ofMillis(50);

  private final OsLockRegistry registry = OsLockRegistry.shared();
  private final Duration timeout;
  private final Clock clock;
  private final Sleeper sleeper;
  private final Runnable onQueued;
  private volatile boolean processLocksUnsupported;

  KeyLocks(FileSystemDatastoreOptions options) {
    this(options, () -> { });
  }

  /** Creates locks that run {@code onQueued} on a thread each time it has to queue in this JVM (for tests). */
  KeyLocks(FileSystemDatastoreOptions options, Runnable onQueued) {
    this.timeout = options.lockTimeout();
    this.clock = options.clock();
    this.sleeper = options.sleeper();
    this.onQueued = onQueued;
  }

  /** Returns whether locks also exclude other processes (false once the provider proved unable to lock). */
  boolean excludesProcesses() {
    return !processLocksUnsupported;
  }

  /** Returns whether any caller in this JVM holds or waits for the lock of this lock file. */
  static boolean inUse(Path lockFile) {
    return OsLockRegistry.shared().inUse(lockFile);
  }

  /**
   * Takes the lock that a lock file stands for, waiting up to the timeout.
   *
   * @return the held lock, or empty when it stayed busy until the deadline
   * @throws IOException if the lock file cannot be opened, locked or written
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws IllegalStateException if this thread holds the lock already
   */
  Optional<Held> acquire(Path lockFile) throws IOException, InterruptedException {
    return acquire(lockFile, "key lock " + lockFile);
  }

  /**
   * Takes the lock that a lock file stands for, waiting up to the timeout, and writes into the file
   * that its holder guards {@code guards}.
   *
   * @return the held lock, or empty when it stayed busy until the deadline
   * @throws IOException if the lock file cannot be opened, locked or written
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws IllegalStateException if this thread holds the lock already
   */
  Optional<Held> acquire(Path lockFile, String guards) throws IOException, InterruptedException {
    OsLockRegistry.Wait wait = OsLockRegistry.Wait
        .until(clock.instant().plus(timeout), clock, sleeper::sleep, MAX_PAUSE)
        .withPauses(FIRST_PAUSE, MAX_PAUSE).withOnQueued(onQueued);
    OsLockRegistry.Attempt attempt = registry.acquire(lockFile, guards, wait);
    if (attempt instanceof OsLockRegistry.Attempt.Acquired acquired) {
      if (!acquired.lock().excludesProcesses()) {
        processLocksUnsupported = true;
      }
      return Optional.of(new Held(acquired.lock()));
    }
    if (attempt instanceof OsLockRegistry.Attempt.Busy) {
      return Optional.empty();
    }
    throw new IllegalStateException("Cannot lock " + lockFile + ": this thread holds it already, and key locks do not re-enter");
  }

  /**
   * Returns who holds the lock of a lock file, for messages: {@code pid 4242 on host h since ...;
   * started ... (...)}, as its holder wrote it into the file (or as the holder in this JVM is known).
   *
   * @return the holder, or empty when the file names none or cannot be read
   */
  Optional<String> holder(Path lockFile) {
    try {
      return registry.holder(lockFile);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** A held key lock; closing it releases the OS lock, then the in-JVM turn. */
  static final class Held implements AutoCloseable {
    private final OsLockRegistry.Held lock;

    private Held(OsLockRegistry.Held lock) {
      this.lock = lock;
    }

    /**
     * Releases the lock; a second call does nothing.
     *
     * @throws IOException if emptying or unlocking the lock file fails (the lock is released all the
     *     same)
     */
    @Override
    public void close() throws IOException {
      lock.release();
    }
  }
}
