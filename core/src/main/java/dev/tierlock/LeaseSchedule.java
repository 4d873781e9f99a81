package dev.tierlock;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * When a waiter for a {@link Lease} tries again: a schedule that scales with the queue the lease
 * has observed, not with the store's round trip. One per lease, shared by its acquisitions.
 *
 * <p><b>What it measures.</b> Two moving averages (each new sample weighs a quarter), both on the
 * lease's clock: the <em>hold</em>, how long this lease's remote holdings last from the attempt
 * that created the record to the release (a turn of the lock, as its holders take it here), and
 * the <em>queue wait</em>, how long this lease's acquisitions waited from their first attempt to
 * the lock (zero for one whose first create won). Until a holding has been measured, the hold is
 * the acquisition's first attempt's own duration ({@link LeaseAcquisition#SHORTEST_FIRST_WAIT} at
 * least, the retry interval at most).
 *
 * <p><b>The waits.</b> Each draw {@code u} is uniform in [0, 1).
 * <ul>
 *   <li>A waiter that has not reserved the next turn first waits, in one sleep, until a point drawn
 *       once per acquisition in [E/2, E) after its first attempt, E the queue wait: the lock is
 *       served to the others ahead of it in the meantime, so it makes no call in that time.</li>
 *   <li>Past that point it tries about once a hold: {@code (1/2 + u) x base}, base the hold, or a
 *       quarter of its wait beyond E if that is longer (behind one long holder the waits grow by a
 *       quarter each, up to the maximum retry interval, instead of polling at the round trip).</li>
 *   <li>A reserver tries about twice a hold: {@code (1/2 + u/2) x base}, base the hold, or a
 *       sixteenth of the time since it reserved if longer, at most the reserver's cap (the retry
 *       interval, or a third of the ttl if shorter).</li>
 * </ul>
 * Nothing starts again when the lock changes hands. Every wait is at most the maximum retry
 * interval and what remains of the maximum wait.
 *
 * <p>Thread-safe: the estimates are guarded by this object's monitor.
 */
final class LeaseSchedule {

  /** The weight of a new sample in each moving average: a quarter. */
  private static final int WEIGHT = 4;

  private long holdNanos = -1;
  private long queueNanos = -1;

  /** Takes in one remote holding of {@code held}, from its create to its release. */
  synchronized void held(Duration held) {
    holdNanos = average(holdNanos, held);
  }

  /** Takes in one acquisition that waited {@code waited} from its first attempt to the lock. */
  synchronized void waited(Duration waited) {
    Duration sample = queueNanos > 0 && waited.compareTo(Duration.ofNanos(queueNanos).multipliedBy(2)) > 0
        ? Duration.ofNanos(queueNanos).multipliedBy(2) : waited;
    queueNanos = average(queueNanos, sample);
  }

  private static long average(long current, Duration sample) {
    long nanos = Math.max(0, saturatedNanos(sample));
    return current < 0 ? nanos : current + (nanos - current) / WEIGHT;
  }

  /** {@return the hold estimate, or {@code fallback} while no holding has been measured} */
  synchronized Duration hold(Duration fallback) {
    // never below the shortest wait: a hold measured as nothing (a store with no latency, a clock
    // that only a wait moves) must not make the waits nothing, or a waiter spins without its clock
    // ever reaching the ttl it must see a record unchanged for
    return holdNanos < 0 ? fallback : Duration.ofNanos(Math.max(LeaseAcquisition.SHORTEST_FIRST_WAIT.toNanos(), holdNanos));
  }

  /** {@return the queue wait estimate; zero while none has been measured} */
  synchronized Duration queue() {
    return Duration.ofNanos(Math.max(0, queueNanos));
  }

  /**
   * Returns the point, after an acquisition's first attempt, before which it makes no further call
   * unless it reserves: drawn in [E/2, E) for the queue wait E.
   *
   * @param unit a draw in [0, 1)
   */
  Duration firstPoint(double unit) {
    return scaled(queue(), 0.75 + 0.25 * clamp(unit));
  }

  /**
   * Returns the next wait of an acquisition.
   *
   * @param waited since the acquisition's first attempt
   * @param firstPoint from {@link #firstPoint}
   * @param sinceReserved since it reserved the next turn; null when it has not
   * @param fallbackHold the hold until one is measured
   * @param unit a draw in [0, 1)
   * @param options the lock's options (the maximum retry interval, the reserver's cap)
   * @param remaining what is left of the maximum wait
   */
  Duration next(Duration waited, Duration firstPoint, @Nullable Duration sinceReserved, Duration fallbackHold,
      double unit, LockOptions options, Duration remaining) {
    Duration hold = hold(fallbackHold);
    double draw = clamp(unit);
    Duration wait;
    Duration cap = options.maxRetryInterval();
    if (sinceReserved != null) {
      wait = scaled(longer(hold, sinceReserved.dividedBy(16)), 0.5 + 0.5 * draw);
      cap = reserverCap(options);
    } else if (waited.compareTo(firstPoint) < 0) {
      wait = firstPoint.minus(waited);
    } else {
      Duration beyond = waited.minus(longer(queue().multipliedBy(4), hold.multipliedBy(32)));
      double holdsPast = saturatedNanos(waited.minus(firstPoint)) / (double) Math.max(1, saturatedNanos(hold));
      Duration poll = scaled(hold, Math.max(0.5, 2 * Math.pow(2, -holdsPast / 4)));
      wait = scaled(longer(poll, beyond.isNegative() ? Duration.ZERO : beyond.dividedBy(4)), 0.5 + draw);
    }
    if (wait.compareTo(cap) > 0) {
      wait = cap;
    }
    if (wait.compareTo(remaining) > 0) {
      wait = remaining;
    }
    return wait.isNegative() ? Duration.ZERO : wait;
  }

  /** {@return the longest wait of a reserver: the retry interval, or a third of the ttl if shorter} */
  static Duration reserverCap(LockOptions options) {
    return options.retryInterval().compareTo(options.heartbeatInterval()) < 0
        ? options.retryInterval() : options.heartbeatInterval();
  }

  private static Duration longer(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static Duration scaled(Duration d, double factor) {
    return Duration.ofNanos((long) Math.min(Long.MAX_VALUE, saturatedNanos(d) * factor));
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private static double clamp(double unit) {
    return Math.max(0.0, Math.min(unit, 1.0));
  }

  @Override
  public synchronized String toString() {
    return "LeaseSchedule[hold " + (holdNanos < 0 ? "unmeasured" : Duration.ofNanos(holdNanos))
        + ", queue wait " + (queueNanos < 0 ? "unmeasured" : Duration.ofNanos(queueNanos)) + "]";
  }
}
