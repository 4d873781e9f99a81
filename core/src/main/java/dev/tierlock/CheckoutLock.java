package dev.tierlock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkout's transaction lock: a {@link LockfileTransaction} run holds it from just after the
 * global lease until just before releasing it, so that two runs on one checkout (two threads, two
 * {@link Tierlock} instances, two processes) never interleave on the checkout's cache, pending
 * record and hydration record, even when one of them stalled past its lease and the other took the
 * lease over. A read-only refresh with nothing pending holds it alone, without the global lease.
 *
 * <p>Two layers, taken in this order and released in reverse: a fair in-JVM mutex keyed by the
 * canonical lock file, then an exclusive OS lock on {@code <state>/transaction.lock}, which the OS
 * frees if the process dies. The lock file lives in the state directory and is never deleted.
 *
 * <p>It belongs to {@link LockLevel#GLOBAL}: the checkout's part of the global level, so it may be
 * taken while the global lease is held, and nothing outer may be taken while it is. Thread-safe.
 */
final class CheckoutLock {

  /** The lock file's name in the state directory. */
  static final String FILE_NAME = "transaction.lock";

  /** How often a busy lock file is tried again (and the longest an in-JVM waiter goes without re-reading the clock). */
  static final Duration POLL = Duration.ofMillis(100);

  private static final Logger LOG = LoggerFactory.getLogger(CheckoutLock.class);

  private final Path lockFile;
  private final Clock clock;
  private final Sleeper sleeper;
  private final FileLocks fileLocks;
  private final Runnable onQueued;

  private CheckoutLock(Path lockFile, Clock clock, Sleeper sleeper, FileLocks fileLocks, Runnable onQueued) {
    this.lockFile = lockFile;
    this.clock = clock;
    this.sleeper = sleeper;
    this.fileLocks = fileLocks;
    this.onQueued = onQueued;
  }

  /**
   * Returns the lock of the checkout whose state directory is {@code stateDirectory} (created if
   * missing).
   *
   * @throws LocalFileException if the state directory cannot be created or resolved
   */
  static CheckoutLock in(Path stateDirectory, Clock clock, Sleeper sleeper) {
    try {
      Path real = Files.createDirectories(stateDirectory).toRealPath();
      return new CheckoutLock(real.resolve(FILE_NAME), clock, sleeper, FileLocks.OS, () -> { });
    } catch (IOException e) {
      throw new LocalFileException("Cannot prepare transaction lock in " + stateDirectory + ": " + e.getMessage(), e);
    }
  }

  /** Returns this lock, running {@code action} on a thread each time it has to queue in this JVM (for tests). */
  CheckoutLock onQueued(Runnable action) {
    return new CheckoutLock(lockFile, clock, sleeper, fileLocks, action);
  }

  /** Returns the lock file (canonical). */
  Path lockFile() {
    return lockFile;
  }

  /** Returns a description for messages. */
  String describe() {
    return "transaction lock " + lockFile;
  }

  /** A held lock; closing it releases it (idempotent, never throws). */
  interface Held extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Acquires both layers, waiting until {@code deadline} at most (one try when it has passed).
   *
   * @param target what the caller runs on, for messages
   * @throws LockTimeoutException if another run kept it until the deadline; names the lock file
   * @throws NestedTransactionException if this thread holds it already (a run through another
   *     {@link Tierlock} of the same checkout inside a run)
   * @throws LockOrderException if this thread holds a lock of an inner level
   * @throws InterruptedOperationException if the thread was interrupted while waiting
   * @throws LocalFileException if the lock file cannot be created or locked
   */
  Held acquire(Instant deadline, String target) {
    LockOrder.Ticket ticket = LockOrder.enter(LockLevel.GLOBAL, describe());
    CheckoutMutex mutex = CheckoutMutex.join(lockFile);
    boolean held = false;
    try {
      if (mutex.isHeldBy(Thread.currentThread())) {
        throw new NestedTransactionException(target);
      }
      Instant start = clock.instant();
      CheckoutMutex.Waiter waiter = mutex.take(clock, deadline, POLL, onQueued)
          .orElseThrow(() -> new LockTimeoutException(lockFile.toString(), null, Duration.between(start, clock.instant())));
      try {
        FileLocks.Held file = fileLocks.lockWithin(lockFile, start, deadline, POLL, clock, sleeper);
        held = true;
        return new Release(file, mutex, waiter, ticket);
      } finally {
        if (!held) {
          mutex.release(waiter);
        }
      }
    } catch (InterruptedException e) {
      throw new InterruptedOperationException("Cannot acquire " + describe(), e);
    } finally {
      if (!held) {
        mutex.leave();
        ticket.close();
      }
    }
  }



  /** Releases the OS lock, then the in-JVM mutex, then the lock-order ticket. */
  private static final class Release implements Held {
    private final FileLocks.Held file;
    private final CheckoutMutex mutex;
    private final CheckoutMutex.Waiter waiter;
    private final LockOrder.Ticket ticket;
    private boolean closed;

    Release(FileLocks.Held file, CheckoutMutex mutex, CheckoutMutex.Waiter waiter, LockOrder.Ticket ticket) {
      this.file = file;
      this.mutex = mutex;
      this.waiter = waiter;
      this.ticket = ticket;
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        file.release();
      } catch (IOException e) {
        LOG.warn("Cannot unlock the transaction lock cleanly: {}; closing its file released it", e.getMessage());
      } finally {
        mutex.release(waiter);
        mutex.leave();
        ticket.close();
      }
    }
  }
}
