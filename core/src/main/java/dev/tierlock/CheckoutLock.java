package dev.tierlock;

import dev.tierlock.internal.OsLockRegistry;
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
 * A checkout-local lock: a lock file in the checkout's state directory, taken through the {@link
 * OsLockRegistry}, which puts a fair (first come, first served) in-JVM queue in front of an exclusive
 * OS lock that the OS frees if the process dies. One wait budget covers both; a waiter that runs out
 * of it leaves the queue without disturbing those behind it and gets a {@link LockTimeoutException}
 * naming the lock file and, when the file names one, its holder. A wait is said once, at its start
 * (INFO), naming the holder and whether its process is stopped when this host can tell. Every failure while acquiring frees
 * whatever was taken. The lock file is never deleted.
 *
 * <p>Two locks are built on it. {@link #in} is the checkout's transaction lock, {@code
 * <state>/transaction.lock}: a {@link LockfileTransaction} run holds it from just after the global
 * lease until just before releasing it, so that two runs on one checkout (two threads, two {@link
 * Tierlock} instances, two processes) never interleave on the checkout's cache, pending record and
 * hydration record, even when one of them stalled past its lease and the other took the lease over.
 * A read-only refresh with nothing pending holds it alone. It sits at {@link LockLevel#CHECKOUT},
 * beside the global lease and before the pulled-extensions lock. A thread that takes it again while
 * it holds it would wait on itself: that is a nested transaction, refused with an {@link
 * IllegalStateException} ({@link #nestedTransaction}). {@link PulledExtensionsLock} is the other,
 * at {@link LockLevel#PULLED_EXTENSIONS}. Thread-safe.
 */
final class CheckoutLock {

  /** The transaction lock file's name in the state directory. */
  static final String FILE_NAME = "transaction.lock";

  /** How often a busy lock file is tried again (and the longest a queued waiter goes without re-reading the clock). */
  static final Duration POLL = Duration.ofMillis(100);

  private static final Logger LOG = LoggerFactory.getLogger(CheckoutLock.class);

  private final Path lockFile;
  private final LockLevel level;
  private final String description;
  private final Duration poll;
  private final Clock clock;
  private final Sleeper sleeper;
  private final OsLockRegistry registry;
  private final Runnable onQueued;
  private final Function<String, RuntimeException> selfWait;

  private CheckoutLock(Path lockFile, LockLevel level, String description, Duration poll, Clock clock, Sleeper sleeper,
      OsLockRegistry registry, Runnable onQueued, Function<String, RuntimeException> selfWait) {
    this.lockFile = lockFile;
    this.level = level;
    this.description = description;
    this.poll = poll;
    this.clock = clock;
    this.sleeper = sleeper;
    this.registry = registry;
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
    return in(stateDirectory, Environment.system().withClock(clock).withSleeper(sleeper));
  }

  /**
   * Returns the transaction lock of the checkout whose state directory is {@code stateDirectory}
   * (created if missing), on {@code environment}'s clock and sleeper, telling its queueing hook when
   * a caller queues for it in this JVM ({@link Environment#queueing()}).
   *
   * @throws LocalFileException if the state directory cannot be created or resolved
   */
  static CheckoutLock in(Path stateDirectory, Environment environment) {
    try {
      Path file = Files.createDirectories(stateDirectory).toRealPath().resolve(FILE_NAME);
      String description = "transaction lock " + file;
      return new CheckoutLock(file, LockLevel.CHECKOUT, description, POLL, environment.clock(), environment.sleeper(),
          OsLockRegistry.shared(), () -> environment.queueing().accept(description), CheckoutLock::nestedTransaction);
    } catch (IOException e) {
      throw new LocalFileException("Cannot prepare transaction lock in " + stateDirectory + ": " + e.getMessage(), e);
    }
  }

  /**
   * Returns a lock on {@code lockFile}.
   *
   * @param description what messages call the lock, {@code <noun> <path>}
   * @param poll how often a busy lock file is tried again; positive
   * @param registry the registry to lock through ({@link OsLockRegistry#shared()} outside tests)
   * @param onQueued run on a thread each time it has to queue in this JVM
   * @param selfWait the failure for a thread that already holds the lock, given the caller's target
   */
  static CheckoutLock of(Path lockFile, LockLevel level, String description, Duration poll, Clock clock, Sleeper sleeper,
      OsLockRegistry registry, Runnable onQueued, Function<String, RuntimeException> selfWait) {
    return new CheckoutLock(lockFile, level, description, poll, clock, sleeper, registry, onQueued, selfWait);
  }

  /**
   * Returns the failure of a thread that starts a transaction on {@code target} while it runs one
   * there already (it would wait on its own locks): a programming error; nested work joins the
   * running transaction through {@link TransactionContext#run}.
   */
  static IllegalStateException nestedTransaction(String target) {
    return new IllegalStateException("Cannot start a transaction on " + target
        + ": this thread is already running one there; join it with TransactionContext.run instead");
  }

  /** Returns this lock, running {@code action} on a thread each time it has to queue in this JVM (for tests). */
  CheckoutLock onQueued(Runnable action) {
    return new CheckoutLock(lockFile, level, description, poll, clock, sleeper, registry, action, selfWait);
  }

  /** Returns the lock file. */
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
     * Empties and unlocks the lock file and hands the lock to the next waiter, then frees the
     * lock-order level; all of it is free afterwards even when this throws. Idempotent; may be called
     * on any thread.
     *
     * @throws IOException if emptying or unlocking the file failed (closing it released the OS lock)
     */
    void unlock() throws IOException;

    /** Same as {@link #unlock()}, logging an unlocking failure instead of throwing it: never throws. */
    @Override
    void close();
  }

  /**
   * Acquires the lock, waiting until {@code deadline} at most (one try when it has passed).
   *
   * @param target what the caller runs on: written into the lock file as what it guards, and given
   *     to the self-wait failure
   * @throws LockTimeoutException if another holder kept it until the deadline; names the lock file
   *     and, when the file names one, the holder
   * @throws RuntimeException the lock's self-wait failure ({@link #nestedTransaction} for the
   *     transaction lock) if this thread holds it already
   * @throws IllegalStateException if this thread holds a lock of an inner level
   * @throws InterruptedOperationException if the thread was interrupted while waiting
   * @throws LocalFileException if the lock file cannot be created, locked or written
   */
  Held acquire(Instant deadline, String target) {
    LockOrder.Ticket ticket = LockOrder.enter(level, describe());
    boolean held = false;
    try {
      Runnable sayOnce = waitNotice(clock.instant(), deadline);
      OsLockRegistry.Wait wait = OsLockRegistry.Wait.until(deadline, clock, pause -> {
        sayOnce.run();
        sleeper.sleep(pause);
      }, poll).withOnQueued(() -> {
        sayOnce.run();
        onQueued.run();
      });
      Held lock = settle(registry.acquire(lockFile, guards(target), wait), target, ticket);
      held = true;
      return lock;
    } catch (IOException e) {
      throw new LocalFileException("Cannot lock " + lockFile + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      throw new InterruptedOperationException("Cannot acquire " + describe(), e);
    } finally {
      if (!held) {
        ticket.close();
      }
    }
  }

  /**
   * Returns what says, once, that an acquisition started at {@code start} waits for this lock until
   * {@code deadline}, naming the holder and, when this host can tell, whether its process is stopped
   * ({@link OsLockRegistry#holderAndState}). Run on the waiting thread, at its first pause or queueing.
   */
  private Runnable waitNotice(Instant start, Instant deadline) {
    java.util.concurrent.atomic.AtomicBoolean said = new java.util.concurrent.atomic.AtomicBoolean();
    return () -> {
      if (!said.compareAndSet(false, true)) {
        return;
      }
      String holder;
      try {
        holder = registry.holderAndState(lockFile).orElse("a holder that has not named itself yet");
      } catch (IOException | RuntimeException e) {
        holder = "a holder that cannot be read (" + e + ")";
      }
      long seconds = Math.max(0, (Duration.between(start, deadline).toMillis() + 999) / 1000);
      LOG.info("Waiting up to {} s for {}, held by {}", seconds, describe(), holder);
    };
  }

  /**
   * Acquires the lock if nobody in this JVM has or awaits it and no other process holds it, without
   * waiting.
   *
   * @param target what the caller runs on
   * @return the held lock, or empty when another thread or process holds it
   * @throws RuntimeException the lock's self-wait failure if this thread holds it already
   * @throws IllegalStateException if this thread holds a lock of an inner level
   * @throws LocalFileException if the lock file cannot be created, locked or written
   */
  Optional<Held> tryAcquire(String target) {
    LockOrder.Ticket ticket = LockOrder.enter(level, describe());
    boolean held = false;
    try {
      OsLockRegistry.Attempt attempt = registry.tryAcquire(lockFile, guards(target), clock);
      if (attempt instanceof OsLockRegistry.Attempt.Busy) {
        return Optional.empty();
      }
      Held lock = settle(attempt, target, ticket);
      held = true;
      return Optional.of(lock);
    } catch (IOException e) {
      throw new LocalFileException("Cannot lock " + lockFile + ": " + e.getMessage(), e);
    } finally {
      if (!held) {
        ticket.close();
      }
    }
  }

  private String guards(String target) {
    return target.equals(description) ? description : description + " for " + target;
  }

  private Held settle(OsLockRegistry.Attempt attempt, String target, LockOrder.Ticket ticket) {
    if (attempt instanceof OsLockRegistry.Attempt.Acquired acquired) {
      return new Release(acquired.lock(), ticket);
    }
    if (attempt instanceof OsLockRegistry.Attempt.Busy busy) {
      throw LockTimeoutException.ofLockFile(lockFile.toString(), busy.holder().orElse(null), busy.waited());
    }
    throw selfWait.apply(target);
  }

  /** Releases the file lock, then the lock-order ticket. */
  private static final class Release implements Held {
    private final OsLockRegistry.Held file;
    private final LockOrder.Ticket ticket;

    Release(OsLockRegistry.Held file, LockOrder.Ticket ticket) {
      this.file = file;
      this.ticket = ticket;
    }

    @Override
    public void unlock() throws IOException {
      try {
        file.release();
      } finally {
        ticket.close();
      }
    }

    @Override
    public void close() {
      try {
        unlock();
      } catch (IOException | RuntimeException e) {
        LOG.warn("Cannot unlock {} cleanly: {}; it is released nonetheless", file.lockFile(), e.toString());
      }
    }
  }
}
