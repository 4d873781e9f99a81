package dev.tierlock.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The one fair (first come, first served) in-JVM queue of Tierlock's locks: the turn on one lock
 * file of the {@link OsLockRegistry}, and the turn on one lease of the datastore global lock. The
 * turn is granted to the head of the queue when its owner ends it, so order is kept however threads
 * are scheduled; the owner may hand a value over with it (a lease's remote holding). A waiter that
 * gives up (deadline or interrupt) leaves the queue and those behind keep their places. Waiting is
 * measured by each waiter's own clock, re-read whenever the turn changes hands, whenever someone
 * {@link #poke pokes} the queue, and at least once per the waiter's slice. Thread-safe.
 *
 * @param <T> what an owner may hand over with the turn
 */
public final class TurnQueue<T> {

  /**
   * One thread's claim on the turn, granted when it reaches the head of the queue.
   *
   * @param <T> what the turn may come with
   */
  public static final class Turn<T> {
    private final Thread thread = Thread.currentThread();
    /** Guarded by the queue's lock. */
    private boolean granted;
    private volatile @Nullable T handed;
    private volatile boolean interrupted;

    private Turn() {}

    /** {@return what the turn before handed over with this turn, if anything} */
    public @Nullable T handed() {
      return handed;
    }

    /**
     * {@return whether the waiter was interrupted just as the turn was granted: the turn is its all
     * the same, and the thread's interrupt flag was set again}
     */
    public boolean interrupted() {
      return interrupted;
    }
  }

  private final ReentrantLock guard = new ReentrantLock();
  private final Condition changed = guard.newCondition();
  private final ArrayDeque<Turn<T>> queue = new ArrayDeque<>();
  private @Nullable Turn<T> owner;

  /** Creates an empty queue: the turn is free. */
  public TurnQueue() {}

  /**
   * {@return whether {@code thread} has the turn (it holds the lock, or is taking it)}
   *
   * @param thread the thread
   */
  public boolean isOwnedBy(Thread thread) {
    guard.lock();
    try {
      return owner != null && owner.thread == thread;
    } finally {
      guard.unlock();
    }
  }

  /**
   * {@return whether {@code turn} is the current one}
   *
   * @param turn a turn of this queue
   */
  public boolean isCurrent(Turn<T> turn) {
    guard.lock();
    try {
      return owner == turn;
    } finally {
      guard.unlock();
    }
  }

  /** {@return the number of threads queued behind the turn's owner} */
  public int queued() {
    guard.lock();
    try {
      return queue.size();
    } finally {
      guard.unlock();
    }
  }

  /** {@return the turn if nobody has it and nobody is queued, or null at once} */
  public @Nullable Turn<T> tryTake() {
    guard.lock();
    try {
      if (owner != null || !queue.isEmpty()) {
        return null;
      }
      Turn<T> turn = new Turn<>();
      turn.granted = true;
      owner = turn;
      return turn;
    } finally {
      guard.unlock();
    }
  }

  /**
   * Queues and waits until the turn is granted, or until {@code deadline} on {@code clock}. A turn
   * granted while the waiter was being interrupted is returned all the same ({@link
   * Turn#interrupted()}), so that no grant, nor what came with it, is ever lost.
   *
   * @param clock the waiter's clock
   * @param deadline when the waiter gives up
   * @param slice the longest the waiter goes without re-reading its clock; positive
   * @param onQueued run on the waiting thread, once, if it has to queue behind another
   * @return the granted turn, or null when the deadline passed first (the waiter left the queue)
   * @throws InterruptedException if interrupted while waiting (the waiter left the queue)
   */
  public @Nullable Turn<T> take(Clock clock, Instant deadline, Duration slice, Runnable onQueued)
      throws InterruptedException {
    guard.lock();
    try {
      Turn<T> turn = new Turn<>();
      queue.addLast(turn);
      if (owner == null) {
        grantNext(null);
      }
      try {
        if (!turn.granted) {
          onQueued.run();
        }
        while (!turn.granted) {
          Duration remaining = Duration.between(clock.instant(), deadline);
          if (remaining.isNegative() || remaining.isZero()) {
            queue.remove(turn);
            return null;
          }
          changed.awaitNanos((remaining.compareTo(slice) < 0 ? remaining : slice).toNanos());
        }
        return turn;
      } catch (InterruptedException e) {
        if (turn.granted) {
          turn.interrupted = true;
          Thread.currentThread().interrupt();
          return turn;
        }
        queue.remove(turn);
        throw e;
      } catch (RuntimeException | Error e) {
        if (turn.granted) {
          end(turn);
        } else {
          queue.remove(turn);
        }
        throw e;
      }
    } finally {
      guard.unlock();
    }
  }

  /** Wakes the queued waiters to re-read their clocks: the owner's own wait moved on. */
  public void poke() {
    guard.lock();
    try {
      changed.signalAll();
    } finally {
      guard.unlock();
    }
  }

  /**
   * Hands the turn of {@code turn}, the owner, with {@code value} to the first waiter, if one waits.
   *
   * @param turn the owner's turn
   * @param value what the next owner gets with the turn
   * @return whether the turn was handed over; false, changing nothing, when nobody waits or {@code
   *     turn} is not the owner
   */
  public boolean handOver(Turn<T> turn, T value) {
    guard.lock();
    try {
      if (owner != turn || queue.isEmpty()) {
        return false;
      }
      grantNext(value);
      return true;
    } finally {
      guard.unlock();
    }
  }

  /**
   * Ends {@code turn} and grants the turn to the next waiter, if any; a turn that is not the owner
   * changes nothing.
   *
   * @param turn the owner's turn
   */
  public void end(Turn<T> turn) {
    end(turn, null);
  }

  /**
   * Ends {@code turn} and grants the turn to the next waiter, if any, with {@code value}; a turn that
   * is not the owner changes nothing.
   *
   * @param turn the owner's turn
   * @param value what the next owner gets with the turn, or null for nothing
   */
  public void end(Turn<T> turn, @Nullable T value) {
    guard.lock();
    try {
      if (owner == turn) {
        owner = null;
        grantNext(value);
      }
    } finally {
      guard.unlock();
    }
  }

  /** Grants the turn to the head of the queue with {@code value}, or leaves it free; wakes the waiters. */
  private void grantNext(@Nullable T value) {
    Turn<T> next = queue.pollFirst();
    owner = next;
    if (next != null) {
      next.handed = value;
      next.granted = true;
    }
    changed.signalAll();
  }
}
