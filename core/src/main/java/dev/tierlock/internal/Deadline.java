package dev.tierlock.internal;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;

/**
 * Tierlock's one deadline type: an instant on an injected clock, so that tests move time instead
 * of waiting for it. Used by the transaction, the lease, the OS locks and archive reads. Immutable.
 *
 * @param clock the clock the deadline is measured on
 * @param end when it passes
 */
public record Deadline(Clock clock, Instant end) {

  /**
   * Returns the deadline {@code budget} from now on {@code clock}, saturating at {@link
   * Instant#MAX}.
   *
   * @param clock the clock
   * @param budget how long from now; not negative
   * @return the deadline
   */
  public static Deadline after(Clock clock, Duration budget) {
    Instant now = clock.instant();
    try {
      return new Deadline(clock, now.plus(budget));
    } catch (ArithmeticException | DateTimeException e) {
      return new Deadline(clock, Instant.MAX);
    }
  }

  /** {@return what is left, never negative} */
  public Duration remaining() {
    Duration left = Duration.between(clock.instant(), end);
    return left.isNegative() ? Duration.ZERO : left;
  }

  /** {@return whether the deadline has passed (at or after its end)} */
  public boolean hasPassed() {
    return !clock.instant().isBefore(end);
  }
}
