package dev.tierlock.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * Runs threads one at a time on a {@link TestClock}: a thread runs until it sleeps through {@link
 * #sleep}, then the thread with the earliest wake-up runs (ties: the one that went to sleep first),
 * the clock set to its wake-up. Nothing else may block a thread for long: the schedule, and so every
 * figure a test reads from it, depends only on the code run and its seeded draws. Thread-safe.
 */
public final class VirtualTime {

  private record Wake(Instant at, long order, Thread thread) {}

  private final TestClock clock;
  private final PriorityQueue<Wake> sleeping = new PriorityQueue<>(
      (a, b) -> a.at().equals(b.at()) ? Long.compare(a.order(), b.order()) : a.at().compareTo(b.at()));
  private long order;
  private @Nullable Thread running;
  private int alive;
  private @Nullable Throwable failure;

  /** Creates a schedule on {@code clock}, which it sets to each thread's wake-up. */
  public VirtualTime(TestClock clock) {
    this.clock = clock;
  }

  /** Starts {@code body} on a daemon thread that runs once its turn comes (after {@link #run}). */
  public synchronized Thread start(String name, Runnable body) {
    Thread thread = new Thread(() -> {
      try {
        awaitTurn();
        body.run();
      } catch (Throwable t) {
        synchronized (this) {
          if (failure == null) {
            failure = t;
          }
        }
      } finally {
        finish();
      }
    }, name);
    thread.setDaemon(true);
    alive++;
    sleeping.add(new Wake(clock.instant(), order++, thread));
    thread.start();
    return thread;
  }

  /**
   * Lets the started threads run until every one has finished.
   *
   * @throws AssertionError if a thread threw (the first failure is the cause)
   */
  public void run() throws InterruptedException {
    synchronized (this) {
      passOn();
      while (alive > 0) {
        wait();
      }
    }
    if (failure != null) {
      throw new AssertionError("a simulated thread failed", failure);
    }
  }

  /** Sleeps the calling thread, one of those started here, for {@code duration} of virtual time. */
  public synchronized void sleep(Duration duration) {
    Thread me = Thread.currentThread();
    sleeping.add(new Wake(clock.instant().plus(duration.isNegative() ? Duration.ZERO : duration), order++, me));
    passOn();
    awaitTurn();
  }

  private synchronized void awaitTurn() {
    while (running != Thread.currentThread()) {
      try {
        wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting for a turn on virtual time", e);
      }
    }
  }

  private synchronized void finish() {
    alive--;
    if (running == Thread.currentThread()) {
      passOn();
    }
    notifyAll();
  }

  private void passOn() {
    Wake next = sleeping.poll();
    running = next == null ? null : next.thread();
    if (next != null && next.at().isAfter(clock.instant())) {
      clock.set(next.at());
    }
    notifyAll();
  }
}
