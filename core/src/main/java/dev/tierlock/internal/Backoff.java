package dev.tierlock.internal;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Tierlock's one schedule of waits between attempts (the lease, the publish loop, the OS locks,
 * the filesystem datastore's key locks): the first wait around {@code first}, each next one around
 * twice the last up to {@code max}, each scaled by a jitter in [0.75, 1.25) drawn from the given
 * source (or exactly, with {@link #NO_JITTER}), then clamped to {@code max} and to what remains of
 * the caller's {@link Deadline}. {@link #fullJitter} is the same doubling with full jitter instead:
 * each wait uniform in [0, cap], for waiters that contend with many others (the lease). Not
 * thread-safe: one per wait.
 */
public final class Backoff {

  /** How a wait is drawn from its base. */
  private enum Jitter { BAND, FULL }

  /** No jitter: every wait is exactly the schedule's. */
  public static final DoubleSupplier NO_JITTER = () -> 0.5;

  /** The largest jitter factor: just below 1.25 (the sum can round up to it). */
  private static final double HIGHEST_FACTOR = Math.nextDown(1.25);

  private final Duration max;
  private final DoubleSupplier unit;
  private final Jitter jitter;
  private Duration base;

  /**
   * Creates a schedule.
   *
   * @param first the first wait, positive
   * @param max the longest wait, at least {@code first}
   * @param unit uniform draws in [0, 1) for the jitter, or {@link #NO_JITTER}
   * @throws IllegalArgumentException if {@code first} is not positive or exceeds {@code max}
   */
  public Backoff(Duration first, Duration max, DoubleSupplier unit) {
    this(first, max, unit, Jitter.BAND);
  }

  private Backoff(Duration first, Duration max, DoubleSupplier unit, Jitter jitter) {
    if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
      throw new IllegalArgumentException("Cannot back off from " + first + " to " + max
          + ": the first wait must be positive and at most the longest");
    }
    this.base = first;
    this.max = max;
    this.unit = unit;
    this.jitter = jitter;
  }

  /**
   * Creates a schedule with full jitter: the first wait uniform in [0, {@code firstCap}], each
   * next one uniform in [0, twice the last cap] up to {@code max}, each clamped to what remains of
   * the caller's budget.
   *
   * @param firstCap the first cap, positive
   * @param max the largest cap, at least {@code firstCap}
   * @param unit uniform draws in [0, 1); a draw outside is clamped into [0, 1]
   * @return the schedule
   * @throws IllegalArgumentException if {@code firstCap} is not positive or exceeds {@code max}
   */
  public static Backoff fullJitter(Duration firstCap, Duration max, DoubleSupplier unit) {
    return new Backoff(firstCap, max, unit, Jitter.FULL);
  }

  /**
   * Returns the next wait, never longer than {@code remaining} (nor negative).
   *
   * @param remaining what is left of the caller's budget
   * @return the wait
   */
  public Duration next(Duration remaining) {
    double factor = jitter == Jitter.FULL
        ? Math.max(0.0, Math.min(unit.getAsDouble(), 1.0))
        : Math.max(0.75, Math.min(0.75 + 0.5 * unit.getAsDouble(), HIGHEST_FACTOR));
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

  /**
   * Returns the next wait within {@code deadline}.
   *
   * @param deadline the caller's deadline
   * @return the wait; zero once the deadline has passed
   */
  public Duration next(Deadline deadline) {
    return next(deadline.remaining());
  }
}
