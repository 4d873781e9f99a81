package dev.tierlock;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * The waits between attempts on a busy lock: the first around the retry interval, each next one
 * around twice the last, up to the maximum; each scaled by a jitter in [0.75, 1.25) so that waiters
 * spread out, then clamped to the maximum and to what remains of the caller's budget. Not
 * thread-safe: one per acquisition.
 */
final class Backoff {

  /** The largest jitter factor: just below 1.25 (the sum can round up to it). */
  private static final double HIGHEST_FACTOR = Math.nextDown(1.25);

  private final Duration max;
  private final DoubleSupplier unit;
  private Duration base;

  /**
   * Creates the backoff of one acquisition.
   *
   * @param unit uniform draws in [0, 1), for the jitter
   */
  Backoff(LockOptions options, DoubleSupplier unit) {
    this(options.retryInterval(), options.maxRetryInterval(), unit);
  }

  Backoff(Duration first, Duration max, DoubleSupplier unit) {
    this.base = first;
    this.max = max;
    this.unit = unit;
  }

  /** Returns the next wait, never longer than {@code remaining} (nor negative). */
  Duration next(Duration remaining) {
    double factor = Math.max(0.75, Math.min(0.75 + 0.5 * unit.getAsDouble(), HIGHEST_FACTOR));
    Duration wait = Duration.ofNanos((long) Math.min(Long.MAX_VALUE, base.toNanos() * factor));
    Duration doubled = base.multipliedBy(2);
    base = doubled.compareTo(max) > 0 ? max : doubled;
    if (wait.compareTo(max) > 0) {
      wait = max;
    }
    if (wait.compareTo(remaining) > 0) {
      wait = remaining;
    }
    return wait.isNegative() ? Duration.ZERO : wait;
  }
}
