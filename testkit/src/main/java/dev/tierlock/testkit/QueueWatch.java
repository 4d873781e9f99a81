package dev.tierlock.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A checkout's queueing hook ({@link TestCheckout.Builder#queueing}) that a test waits on: it keeps
 * each thread it is told on, once per queueing, until the test takes it with {@link #await}. So a
 * scenario goes on once a caller has reached the queue, never because its thread looks parked.
 * Thread-safe.
 */
final class QueueWatch implements Consumer<String> {

  private static final long BOUND_SECONDS = 30;

  /** The threads told and not yet taken, one entry per queueing. Guarded by this. */
  private final List<Thread> queued = new ArrayList<>();

  @Override
  public synchronized void accept(String waitedFor) {
    queued.add(Thread.currentThread());
    notifyAll();
  }

  /**
   * Waits, at most 30 s, until {@code thread} has queued, and takes that queueing.
   *
   * @throws IllegalStateException if {@code thread} ended, or 30 s passed, without queueing
   * @throws InterruptedException if interrupted while waiting
   */
  synchronized void await(Thread thread) throws InterruptedException {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
    while (!queued.remove(thread)) {
      long left = giveUp - System.nanoTime();
      if (left <= 0 || !thread.isAlive()) {
        throw new IllegalStateException("Cannot go on: " + thread.getName() + " did not queue behind another caller"
            + (thread.isAlive() ? " within " + BOUND_SECONDS + " s" : " (it ended)"));
      }
      // woken by accept(); the bounded wait only notices a thread that ended without queueing
      TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
    }
  }
}
