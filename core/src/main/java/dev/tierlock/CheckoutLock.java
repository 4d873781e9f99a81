package dev.tierlock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A checkout-local lock in two layers, taken in this order and released in reverse: a fair in-JVM
 * {@link CheckoutMutex} keyed by a canonical path, then an exclusive OS lock on a lock file in the
 * checkout's state directory, which the OS frees if the process dies. The lock file is never
 * deleted. One wait budget covers both layers; a waiter that runs out of it leaves the in-JVM queue
 * without disturbing those behind it. Every failure while acquiring frees whatever was taken.
 *
 * <p>Two locks are built on it. {@link #in} is the checkout's transaction lock: a {@link
 * LockfileTransaction} run holds it from just after the global lease until just before releasing
 * it, so that two runs on one checkout (two threads, two {@link Tierlock} instances, two processes)
 * never interleave on the checkout's cache, pending record and hydration record, even when one of
 * them stalled past its lease and the other took the lease over. A read-only refresh with nothing
 * pending holds it alone, without the global lease. Its mutex is keyed by the canonical lock file
 * {@code <state>/transaction.lock}, and it belongs to {@link LockLevel#GLOBAL}: the checkout's part
 * of the global level, so it may be taken while the global lease is held, and nothing outer may be
 * taken while it is. {@link PulledExtensionsLock} is the other, at {@link
 * LockLevel#PULLED_EXTENSIONS}, keyed by the checkout. Thread-safe.
 */
final class CheckoutLock {

  /** The transaction lock file's name in the state directory. */
  static final String FILE_NAME = "transaction.lock";

  /** How often a busy lock file is tried again (and the longest an in-JVM waiter goes without re-reading the clock). */
  static final Duration POLL = Duration.ofMillis(100);

  private static final Logger LOG = LoggerFactory.getLogger(CheckoutLock.class);

  private final Path lockFile;
  private final Path mutexKey;
  private final LockLevel level;
  private final String description;
  private final Duration poll;
  private final Clock clock;
  private final Sleeper sleeper;
  private final FileLocks fileLocks;
  private final Runnable onQueued;
  private final Function<String, RuntimeException> selfWait;

  private CheckoutLock(Path lockFile, Path mutexKey, LockLevel level, String description, Duration poll, Clock clock,
      Sleeper sleeper, FileLocks fileLocks, Runnable onQueued, Function<String, RuntimeException> selfWait) {
    this.lockFile = lockFile;
    this.mutexKey = mutexKey;
    this.level = level;
    this.description = description;
    this.poll = poll;
    this.clock = clock;
    this.sleeper = sleeper;
    this.fileLocks = fileLocks;
    this.onQueued = onQueued;
    this.selfWait = selfWait;
  }

  /**
   * Returns the transaction lock of the checkout whose state directory is {@code stateDirectory}
   * (created if missing).
   *
   * @throws LocalFileException if the state directory cannot be created or resolved
   */
  static CheckoutLock in(Path stateDirectory, Clock clock, Sleeper sleeper) {
    try {
      Path file = Files.createDirectories(stateDirectory).toRealPath().resolve(FILE_NAME);
      return new CheckoutLock(file, file, LockLevel.GLOBAL, "transaction lock " + file, POLL, clock, sleeper,
          FileLocks.OS, () -> { }, NestedTransactionException::new);
    } catch (IOException e) {
      throw new LocalFileException("Cannot prepare transaction lock in " + stateDirectory + ": " + e.getMessage(), e);
    }
  }

  /**
   * Returns a lock on {@code lockFile} whose in-JVM layer is keyed by {@code mutexKey}.
   *
   * @param description what messages call the lock, {@code <noun> <path>}
   * @param poll how often a busy lock file is tried again; positive
   * @param onQueued run on a thread each time it has to queue in this JVM
   * @param selfWait the failure for a thread that already holds the lock, given the caller's target
   */
  static CheckoutLock of(Path lockFile, Path mutexKey, LockLevel level, String description, Duration poll, Clock clock,
      Sleeper sleeper, FileLocks fileLocks, Runnable onQueued, Function<String, RuntimeException> selfWait) {
    return new CheckoutLock(lockFile, mutexKey, level, description, poll, clock, sleeper, fileLocks, onQueued, selfWait);
  }

  /** Returns this lock, running {@code action} on a thread each time it has to queue in this JVM (for tests). */
  CheckoutLock onQueued(Runnable action) {
    return new CheckoutLock(lockFile, mutexKey, level, description, poll, clock, sleeper, fileLocks, action, selfWait);
  }

  /** Returns the lock file (canonical). */
  Path lockFile() {
    return lockFile;
  }

  /** Returns a description for messages. */
  String describe() {
    return description;
  }

  /** A held lock. */
  interface Held extends AutoCloseable {

    /**
     * Unlocks the file, then frees the in-JVM mutex and the lock-order level; both are free
     * afterwards even when this throws. Idempotent.
     *
     * @throws IOException if unlocking the file failed (closing it released the OS lock)
     */
    void unlock() throws IOException;

    /** Same as {@link #unlock()}, logging an unlocking failure instead of throwing it. */
    @Override
    void close();
  }

  /**
   * Acquires both layers, waiting until {@code deadline} at most (one try when it has passed).
   *
   * @param target what the caller runs on, for messages
   * @throws LockTimeoutException if another holder kept it until the deadline; names the lock file
   * @throws RuntimeException the lock's self-wait failure ({@link NestedTransactionException} for the
   *     transaction lock) if this thread holds it already
   * @throws LockOrderException if this thread holds a lock of an inner level
   * @throws InterruptedOperationException if the thread was interrupted while waiting
   * @throws LocalFileException if the lock file cannot be created or locked
   */
  Held acquire(Instant deadline, String target) {
    LockOrder.Ticket ticket = LockOrder.enter(level, describe());
    CheckoutMutex mutex = CheckoutMutex.join(mutexKey);
    boolean held = false;
    try {
      rejectSelfWait(mutex, target);
      Instant start = clock.instant();
      CheckoutMutex.Waiter waiter = mutex.take(clock, deadline, poll, onQueued)
          .orElseThrow(() -> new LockTimeoutException(lockFile.toString(), null, Duration.between(start, clock.instant())));
      try {
        FileLocks.Held file = fileLocks.lockWithin(lockFile, start, deadline, poll, clock, sleeper);
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

  /**
   * Acquires both layers if both are free now, without waiting.
   *
   * @param target what the caller runs on, for messages
   * @return the held lock, or empty when another thread or process holds it
   * @throws RuntimeException the lock's self-wait failure if this thread holds it already
   * @throws LockOrderException if this thread holds a lock of an inner level
   * @throws LocalFileException if the lock file cannot be created or locked
   */
  Optional<Held> tryAcquire(String target) {
    LockOrder.Ticket ticket = LockOrder.enter(level, describe());
    CheckoutMutex mutex = CheckoutMutex.join(mutexKey);
    boolean held = false;
    try {
      rejectSelfWait(mutex, target);
      Optional<CheckoutMutex.Waiter> waiter = mutex.tryTake();
      if (waiter.isEmpty()) {
        return Optional.empty();
      }
      try {
        Optional<FileLocks.Held> file = tryLockFile();
        if (file.isEmpty()) {
          return Optional.empty();
        }
        held = true;
        return Optional.of(new Release(file.get(), mutex, waiter.get(), ticket));
      } finally {
        if (!held) {
          mutex.release(waiter.get());
        }
      }
    } finally {
      if (!held) {
        mutex.leave();
        ticket.close();
      }
    }
  }

  private void rejectSelfWait(CheckoutMutex mutex, String target) {
    if (mutex.isHeldBy(Thread.currentThread())) {
      throw selfWait.apply(target);
    }
  }

  private Optional<FileLocks.Held> tryLockFile() {
    try {
      Files.createDirectories(lockFile.toAbsolutePath().getParent());
      return fileLocks.tryLock(lockFile);
    } catch (IOException e) {
      throw new LocalFileException("Cannot lock " + lockFile + ": " + e.getMessage(), e);
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
    public synchronized void unlock() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        file.release();
      } finally {
        mutex.release(waiter);
        mutex.leave();
        ticket.close();
      }
    }

    @Override
    public void close() {
      try {
        unlock();
      } catch (IOException e) {
        LOG.warn("Cannot unlock a checkout lock cleanly: {}; closing its file released it", e.getMessage());
      }
    }
  }
}
