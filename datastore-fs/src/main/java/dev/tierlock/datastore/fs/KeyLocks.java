package dev.tierlock.datastore.fs;

import dev.tierlock.Sleeper;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;

/**
 * Exclusive per-key locks that hold across threads and processes: an in-JVM permit keyed by the
 * lock file, then an OS lock ({@link FileChannel#tryLock()}) on that file. The permit comes first
 * because OS file locks belong to the whole JVM: a second lock on the same file from this JVM
 * throws, and closing any channel on the file may drop the lock another channel holds, so within
 * one JVM only the permit holder ever opens the file.
 *
 * <p>Both are taken by polling, with pauses of 1 ms doubling to 50 ms spent through the injected
 * {@link Sleeper}, until the deadline measured on the injected {@link Clock}; a lock that stays
 * busy yields empty. The OS frees the lock of a process that dies, so a crashed writer never
 * blocks the others. Lock files are never deleted (deleting one would race with a process that
 * has it open).
 *
 * <p>When the file system provider cannot lock files ({@link UnsupportedOperationException}), only
 * the in-JVM permit is taken: writers in this JVM still exclude each other, writers in other
 * processes do not. An I/O error from the OS lock (such as a network mount without a lock service)
 * is not a reason to fall back; it propagates. Thread-safe.
 */
final class KeyLocks {

  private static final Duration FIRST_PAUSE = Duration.ofMillis(1);
  private static final Duration MAX_PAUSE = Duration.ofMillis(50);

  /** Permits of every lock file this JVM (class loader) is using, with their user counts. */
  private static final ConcurrentHashMap<Path, Slot> SLOTS = new ConcurrentHashMap<>();

  private final Duration timeout;
  private final Clock clock;
  private final Sleeper sleeper;
  private volatile boolean processLocksUnsupported;

  KeyLocks(FileSystemDatastoreOptions options) {
    this.timeout = options.lockTimeout();
    this.clock = options.clock();
    this.sleeper = options.sleeper();
  }

  /** Returns whether locks also exclude other processes (false once the provider proved unable to lock). */
  boolean excludesProcesses() {
    return !processLocksUnsupported;
  }

  /** Returns whether any caller in this JVM holds or waits for the lock of this lock file. */
  static boolean inUse(Path lockFile) {
    return SLOTS.containsKey(lockFile);
  }

  /**
   * Takes the lock that a lock file stands for, waiting up to the timeout.
   *
   * @return the held lock, or empty when it stayed busy until the deadline
   * @throws IOException if the lock file cannot be opened or locked
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  Optional<Held> acquire(Path lockFile) throws IOException, InterruptedException {
    Instant deadline = clock.instant().plus(timeout);
    Slot slot = retain(lockFile);
    boolean permit = false;
    @Nullable FileChannel channel = null;
    @Nullable Held held = null;
    try {
      Duration pause = FIRST_PAUSE;
      while (true) {
        permit = permit || slot.permit.tryAcquire();
        if (permit) {
          if (!processLocksUnsupported && channel == null) {
            channel = openChannel(lockFile);
          }
          if (channel == null) {
            held = new Held(lockFile, slot, null);
            return Optional.of(held);
          }
          if (tryLock(channel)) {
            held = new Held(lockFile, slot, channel);
            return Optional.of(held);
          }
        }
        Instant now = clock.instant();
        if (!now.isBefore(deadline)) {
          return Optional.empty();
        }
        Duration remaining = Duration.between(now, deadline);
        sleeper.sleep(pause.compareTo(remaining) < 0 ? pause : remaining);
        pause = pause.multipliedBy(2).compareTo(MAX_PAUSE) < 0 ? pause.multipliedBy(2) : MAX_PAUSE;
      }
    } finally {
      if (held == null) {
        try {
          if (channel != null) {
            channel.close();
          }
        } finally {
          if (permit) {
            slot.permit.release();
          }
          release(lockFile);
        }
      }
    }
  }

  private @Nullable FileChannel openChannel(Path lockFile) throws IOException {
    try {
      try {
        return FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      } catch (NoSuchFileException e) {
        Files.createDirectories(lockFile.getParent());
        return FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      }
    } catch (UnsupportedOperationException e) {
      processLocksUnsupported = true;
      return null;
    }
  }

  private boolean tryLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock() != null;
    } catch (OverlappingFileLockException e) {
      // another channel of this JVM holds it (a datastore opened through another class loader)
      return false;
    } catch (UnsupportedOperationException e) {
      processLocksUnsupported = true;
      return true;
    }
  }

  private static Slot retain(Path lockFile) {
    return SLOTS.compute(lockFile, (file, slot) -> {
      Slot kept = slot == null ? new Slot() : slot;
      kept.users++;
      return kept;
    });
  }

  private static void release(Path lockFile) {
    SLOTS.computeIfPresent(lockFile, (file, slot) -> --slot.users == 0 ? null : slot);
  }

  /** The in-JVM permit of one lock file; {@code users} is guarded by the map's compute. */
  private static final class Slot {
    final Semaphore permit = new Semaphore(1);
    int users;
  }

  /** A held key lock; closing it releases the OS lock, then the permit. Not thread-safe. */
  static final class Held implements AutoCloseable {
    private final Path lockFile;
    private final Slot slot;
    private final @Nullable FileChannel channel;
    private boolean closed;

    private Held(Path lockFile, Slot slot, @Nullable FileChannel channel) {
      this.lockFile = lockFile;
      this.slot = slot;
      this.channel = channel;
    }

    /**
     * Releases the lock; a second call does nothing.
     *
     * @throws IOException if closing the lock file fails (the lock is released all the same)
     */
    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        if (channel != null) {
          channel.close();
        }
      } finally {
        slot.permit.release();
        release(lockFile);
      }
    }
  }
}
