package dev.tierlock;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The in-JVM layer of the pulled-extensions lock: one fair (first come, first served) mutex per
 * canonical checkout path, shared by every {@link PulledExtensionsLock} of that checkout in this
 * JVM. The mutex is handed to the head of the queue on release, so order is kept however threads
 * are scheduled; a waiter that gives up leaves the queue and those behind it keep their places.
 * Waiting time is measured by the caller's clock, re-read whenever the queue changes and at least
 * once per slice. A mutex lives in the registry only while someone uses it. Thread-safe.
 */
final class CheckoutMutex {

  private static final Map<Path, CheckoutMutex> BY_CHECKOUT = new HashMap<>();

  private final Path checkout;
  private final ReentrantLock guard = new ReentrantLock();
  private final Condition changed = guard.newCondition();
  private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
  private @Nullable Waiter owner;
  private int users;

  private CheckoutMutex(Path checkout) {
    this.checkout = checkout;
  }

  /** One thread's claim on the mutex, granted when it reaches the head of the queue. */
  static final class Waiter {
    final Thread thread = Thread.currentThread();
    boolean granted;
  }

  /** Returns the mutex of a canonical checkout path, counting the caller as a user until {@link #leave()}. */
  static CheckoutMutex join(Path canonicalCheckout) {
    synchronized (BY_CHECKOUT) {
      CheckoutMutex mutex = BY_CHECKOUT.computeIfAbsent(canonicalCheckout, CheckoutMutex::new);
      mutex.users++;
      return mutex;
    }
  }

  /** Ends one use begun by {@link #join}; the last user removes the mutex from the registry. */
  void leave() {
    synchronized (BY_CHECKOUT) {
      if (--users == 0) {
        BY_CHECKOUT.remove(checkout, this);
      }
    }
  }

  /** Returns whether {@code thread} holds the mutex. */
  boolean isHeldBy(Thread thread) {
    guard.lock();
    try {
      return owner != null && owner.thread == thread;
    } finally {
      guard.unlock();
    }
  }

  /** Takes the mutex if it is free and nobody is queued; otherwise returns empty at once. */
  Optional<Waiter> tryTake() {
    guard.lock();
    try {
      if (owner != null || !queue.isEmpty()) {
        return Optional.empty();
      }
      Waiter waiter = new Waiter();
      waiter.granted = true;
      owner = waiter;
      return Optional.of(waiter);
    } finally {
      guard.unlock();
    }
  }

  /**
   * Queues and waits until the mutex is handed over, or until {@code deadline} by {@code clock}.
   *
   * @param onQueued run once, on this thread, if the caller has to wait
   * @return the granted claim, or empty when the deadline passed first (the caller left the queue)
   * @throws InterruptedException if interrupted while waiting (the caller left the queue)
   */
  Optional<Waiter> take(Clock clock, Instant deadline, Duration slice, Runnable onQueued) throws InterruptedException {
    guard.lock();
    try {
      Waiter waiter = new Waiter();
      queue.addLast(waiter);
      handOver();
      try {
        if (!waiter.granted) {
          onQueued.run();
        }
        while (!waiter.granted) {
          Duration remaining = Duration.between(clock.instant(), deadline);
          if (remaining.isNegative() || remaining.isZero()) {
            queue.remove(waiter);
            changed.signalAll();
            return Optional.empty();
          }
          changed.awaitNanos((remaining.compareTo(slice) < 0 ? remaining : slice).toNanos());
        }
        return Optional.of(waiter);
      } catch (InterruptedException | RuntimeException | Error e) {
        if (waiter.granted) {
          release(waiter);
        } else {
          queue.remove(waiter);
          changed.signalAll();
        }
        throw e;
      }
    } finally {
      guard.unlock();
    }
  }

  /** Releases a granted claim and hands the mutex to the next waiter; a stale claim changes nothing. */
  void release(Waiter waiter) {
    guard.lock();
    try {
      if (owner == waiter) {
        owner = null;
        handOver();
        changed.signalAll();
      }
    } finally {
      guard.unlock();
    }
  }

  private void handOver() {
    if (owner == null) {
      Waiter next = queue.pollFirst();
      if (next != null) {
        next.granted = true;
        owner = next;
      }
    }
  }
}
