package dev.tierlock;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The lockfile's own short local lock, at {@link LockLevel#LOCKFILE}: a fair in-JVM lock keyed by
 * the canonical lock path, then an OS lock on the lock file, which the OS frees if the holder
 * crashes. The OS lock is tried {@link #ATTEMPTS} times, {@link #INTERVAL} apart, through the
 * injected {@link Sleeper}. The lock file is created if missing and never deleted. Thread-safe.
 */
final class LocalFileLock {

  /** Attempts at the OS lock before giving up. */
  static final int ATTEMPTS = 10;

  /** The wait between attempts. */
  static final Duration INTERVAL = Duration.ofMillis(100);

  /** The longest wait for another thread of this JVM, which holds the lock only for local I/O. */
  private static final Duration IN_JVM_WAIT = Duration.ofSeconds(60);

  private static final ConcurrentMap<Path, ReentrantLock> IN_JVM = new ConcurrentHashMap<>();

  private final Path lockPath;
  private final Path guarded;
  private final Sleeper sleeper;

  private LocalFileLock(Path lockPath, Path guarded, Sleeper sleeper) {
    this.lockPath = lockPath;
    this.guarded = guarded;
    this.sleeper = sleeper;
  }

  /**
   * Returns the lock at {@code lockPath} guarding {@code guarded}, creating the lock's directory.
   *
   * @throws LocalFileException if the directory cannot be created or resolved
   */
  static LocalFileLock at(Path lockPath, Path guarded, Sleeper sleeper) {
    try {
      Path dir = lockPath.toAbsolutePath().normalize().getParent();
      Files.createDirectories(dir);
      return new LocalFileLock(dir.toRealPath().resolve(lockPath.getFileName().toString()), guarded, sleeper);
    } catch (IOException e) {
      throw new LocalFileException("Cannot prepare lock " + lockPath + " of " + guarded + ": " + e.getMessage(), e);
    }
  }

  /** Returns the canonical lock path. */
  Path path() {
    return lockPath;
  }

  /** A held lock; closing it releases it. */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Takes the lock.
   *
   * @throws TierlockException with code {@code lock_order} if this thread holds this lock already
   * @throws LockfileBusyException if another holder kept it through every attempt
   * @throws LocalFileException if the lock file cannot be opened
   */
  Held acquire() {
    String what = "lockfile lock " + lockPath;
    LockOrder.Ticket ticket = LockOrder.enter(LockLevel.LOCKFILE, what);
    ReentrantLock jvm = IN_JVM.computeIfAbsent(lockPath, p -> new ReentrantLock(true));
    try {
      if (jvm.isHeldByCurrentThread()) {
        throw new TierlockException(LockOrderException.CODE,
            "Cannot acquire " + what + ": this thread already holds it, and the lockfile lock does not re-enter");
      }
      if (!jvm.tryLock(IN_JVM_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new LockfileBusyException(guarded, lockPath, 1);
      }
    } catch (InterruptedException e) {
      ticket.close();
      throw new InterruptedOperationException("Cannot acquire " + what, e);
    } catch (RuntimeException e) {
      ticket.close();
      throw e;
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        FileLock os = tryOsLock(channel);
        if (os != null) {
          return release(ticket, jvm, channel, os);
        }
        if (attempt < ATTEMPTS) {
          sleeper.sleep(INTERVAL);
        }
      }
      throw new LockfileBusyException(guarded, lockPath, ATTEMPTS);
    } catch (IOException e) {
      closeQuietly(channel);
      jvm.unlock();
      ticket.close();
      throw new LocalFileException("Cannot acquire " + what + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      closeQuietly(channel);
      jvm.unlock();
      ticket.close();
      throw new InterruptedOperationException("Cannot acquire " + what, e);
    } catch (RuntimeException e) {
      closeQuietly(channel);
      jvm.unlock();
      ticket.close();
      throw e;
    }
  }

  private static Held release(LockOrder.Ticket ticket, ReentrantLock jvm, FileChannel channel, FileLock os) {
    return new Held() {
      private boolean closed;

      @Override
      public void close() {
        if (closed) {
          return;
        }
        closed = true;
        try {
          os.release();
        } catch (IOException e) {
          // Closing the channel below releases the OS lock as well.
        } finally {
          closeQuietly(channel);
          jvm.unlock();
          ticket.close();
        }
      }
    };
  }

  private static @Nullable FileLock tryOsLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock();
    } catch (OverlappingFileLockException e) {
      // Another channel of this JVM holds it (a second path spelling or a foreign opener): contention.
      return null;
    }
  }

  private static void closeQuietly(@Nullable FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // Nothing is left to release: closing frees the OS lock.
      }
    }
  }
}
