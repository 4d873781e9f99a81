package dev.tierlock.internal;

import dev.tierlock.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * How one {@link OsLockRegistry#acquire} waits: until {@code deadline} on {@code clock}, first in
 * this JVM's queue (woken when its turn comes, re-reading the clock at least every {@code
 * maxPause}), then polling the OS lock through {@code sleeper}, {@code firstPause} doubling up to
 * {@code maxPause} between attempts. Immutable.
 *
 * @param clock measures the deadline and stamps the holder's acquired-at
 * @param sleeper spends the pauses between attempts at the OS lock
 * @param deadline when to give up; one attempt when it has passed
 * @param firstPause the first pause; positive
 * @param maxPause the longest pause, also the longest a queued waiter goes without re-reading the
 *     clock; at least {@code firstPause}
 * @param onQueued run on the waiting thread, once, when it has to queue behind another thread
 */
public record LockWait(Clock clock, Sleeper sleeper, Instant deadline, Duration firstPause, Duration maxPause,
    Runnable onQueued) {

  /**
   * Validates the pauses.
   *
   * @param clock measures the deadline and stamps the holder's acquired-at
   * @param sleeper spends the pauses between attempts at the OS lock
   * @param deadline when to give up; one attempt when it has passed
   * @param firstPause the first pause; positive
   * @param maxPause the longest pause, also the longest a queued waiter goes without re-reading the
   *     clock; at least {@code firstPause}
   * @param onQueued run on the waiting thread, once, when it has to queue behind another thread
   * @throws IllegalArgumentException if {@code firstPause} is not positive or exceeds {@code maxPause}
   */
  public LockWait {
    if (firstPause.isNegative() || firstPause.isZero() || maxPause.compareTo(firstPause) < 0) {
      throw new IllegalArgumentException("Cannot wait for a lock with pauses from " + firstPause + " to " + maxPause
          + ": the first must be positive and at most the longest");
    }
  }

  /**
   * {@return a wait until {@code deadline} that polls every {@code poll} and runs nothing when queued}
   *
   * @param deadline when to give up; one attempt when it has passed
   * @param clock measures the deadline and stamps the holder's acquired-at
   * @param sleeper spends the pauses between attempts
   * @param poll the pause between attempts; positive
   * @throws IllegalArgumentException if {@code poll} is not positive
   */
  public static LockWait until(Instant deadline, Clock clock, Sleeper sleeper, Duration poll) {
    return new LockWait(clock, sleeper, deadline, poll, poll, () -> { });
  }

  /**
   * {@return this wait with {@code firstPause} doubling up to {@code maxPause}}
   *
   * @param first the first pause; positive
   * @param max the longest pause; at least {@code first}
   */
  public LockWait withPauses(Duration first, Duration max) {
    return new LockWait(clock, sleeper, deadline, first, max, onQueued);
  }

  /**
   * {@return this wait running {@code action} when the caller has to queue in this JVM}
   *
   * @param action what runs on the waiting thread, once, when it queues
   */
  public LockWait withOnQueued(Runnable action) {
    return new LockWait(clock, sleeper, deadline, firstPause, maxPause, action);
  }
}
