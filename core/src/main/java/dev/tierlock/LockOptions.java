package dev.tierlock;

import java.time.Duration;

/**
 * Timing of a lease lock. Defaults: ttl 30 s (heartbeat every ttl/3), waits between attempts
 * drawn with full jitter under a cap that starts near the store's round trip (at most 1 s) and
 * doubles up to 8 s, give up after 60 s ({@link DistributedLock} tells how the waits are drawn).
 *
 * @param ttl how long a lease stays fresh without a heartbeat
 * @param retryInterval the largest first cap of the waits between attempts (the lease lock starts
 *     its cap at its first attempt's measured duration, never above this), and the largest cap of
 *     a waiter that has reserved the next turn
 * @param maxRetryInterval the largest cap of the waits between attempts
 * @param maxWait how long {@link DistributedLock#acquire()} waits in total
 */
public record LockOptions(Duration ttl, Duration retryInterval, Duration maxRetryInterval, Duration maxWait) {

  /** The defaults. */
  public static final LockOptions DEFAULTS =
      new LockOptions(Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ofSeconds(60));

  /**
   * Validates the values.
   *
   * @param ttl how long a lease stays fresh without a heartbeat
   * @param retryInterval the largest first cap of the waits between attempts (the lease lock starts
   *     its cap at its first attempt's measured duration, never above this), and the largest cap of
   *     a waiter that has reserved the next turn
   * @param maxRetryInterval the largest cap of the waits between attempts
   * @param maxWait how long {@link DistributedLock#acquire()} waits in total
   * @throws IllegalArgumentException if a duration is negative, the ttl or retry interval is not
   *     positive, or the retry interval exceeds its maximum
   */
  public LockOptions {
    requirePositive("ttl", ttl);
    requirePositive("retryInterval", retryInterval);
    requirePositive("maxRetryInterval", maxRetryInterval);
    if (maxWait.isNegative()) {
      throw new IllegalArgumentException("Cannot use lock options: maxWait is negative: " + maxWait);
    }
    if (retryInterval.compareTo(maxRetryInterval) > 0) {
      throw new IllegalArgumentException(
          "Cannot use lock options: retryInterval " + retryInterval + " exceeds maxRetryInterval " + maxRetryInterval);
    }
  }

  /** {@return the interval between heartbeats: a third of the ttl} */
  public Duration heartbeatInterval() {
    return ttl.dividedBy(3);
  }

  /**
   * {@return these options with another ttl}
   *
   * @param value the new ttl
   */
  public LockOptions withTtl(Duration value) {
    return new LockOptions(value, retryInterval, maxRetryInterval, maxWait);
  }

  /**
   * {@return these options with another maximum wait}
   *
   * @param value the new maximum wait
   */
  public LockOptions withMaxWait(Duration value) {
    return new LockOptions(ttl, retryInterval, maxRetryInterval, value);
  }

  private static void requirePositive(String name, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("Cannot use lock options: " + name + " must be positive, got " + d);
    }
  }
}
