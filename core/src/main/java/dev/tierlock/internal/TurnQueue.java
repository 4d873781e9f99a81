package dev.tierlock.internal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The fair (first come, first served) in-JVM queue in front of one lock file's OS lock. The turn is
 * handed to the head of the queue on release, so order is kept however threads are scheduled; a
 * waiter that gives up (deadline or interrupt) leaves the queue and those behind keep their places.
 * Waiting time is measured by the caller's clock, re-read whenever the turn changes hands and at
 * least once per {@link LockWait#maxPause()}. Thread-safe.
 */
final class TurnQueue {

  /** One thread's claim on the turn, granted when it reaches the head of the queue. */
  static final class Turn {
    final Thread thread = Thread.currentThread();
    boolean granted;
  }

  private final ReentrantLock guard = new ReentrantLock();
  private final Condition changed = guard.newCondition();
  private final ArrayDeque<Turn> queue = new ArrayDeque<>();
  private @Nullable Turn owner;

  /** Returns whether {@code thread} has the turn (it holds the lock, or is taking it). */
  boolean isOwnedBy(Thread thread) {
    guard.lock();
    try {
      return owner != null && owner.thread == thread;
    } finally {
      guard.unlock();
    }
  }

  /** Returns whether {@code turn} is the current one. */
  boolean isCurrent(Turn turn) {
    guard.lock();
    try {
      return owner == turn;
    } finally {
      guard.unlock();
    }
  }

  /** Returns the number of threads queued behind the turn's owner. */
  int queued() {
    guard.lock();
    try {
      return queue.size();
    } finally {
      guard.unlock();
    }
  }

  /** Takes the turn if nobody has it and nobody is queued; otherwise returns null at once. */
  @Nullable Turn tryTake() {
    guard.lock();
    try {
      if (owner != null || !queue.isEmpty()) {
        return null;
      }
      Turn turn = new Turn();
      turn.granted = true;
      owner = turn;
      return turn;
    } finally {
      guard.unlock();
    }
  }

  /**
   * Queues and waits until the turn is handed over, or until the deadline.
   *
   * @return the granted turn, or null when the deadline passed first (the caller left the queue)
   * @throws InterruptedException if interrupted while waiting (the caller left the queue)
   */
  @Nullable Turn take(LockWait wait) throws InterruptedException {
    guard.lock();
    try {
      Turn turn = new Turn();
      queue.addLast(turn);
      handOver();
      try {
        if (!turn.granted) {
          wait.onQueued().run();
        }
        while (!turn.granted) {
          Duration remaining = Duration.between(wait.clock().instant(), wait.deadline());
          if (remaining.isNegative() || remaining.isZero()) {
            queue.remove(turn);
            return null;
          }
          changed.awaitNanos((remaining.compareTo(wait.maxPause()) < 0 ? remaining : wait.maxPause()).toNanos());
        }
        return turn;
      } catch (InterruptedException | RuntimeException | Error e) {
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

  /** Ends a granted turn and hands it to the next waiter; a stale turn changes nothing. */
  void end(Turn turn) {
    guard.lock();
    try {
      if (owner == turn) {
        owner = null;
        handOver();
      }
    } finally {
      guard.unlock();
    }
  }

  private void handOver() {
    if (owner == null) {
      Turn next = queue.pollFirst();
      if (next != null) {
        next.granted = true;
        owner = next;
        changed.signalAll();
      }
    }
  }
}
