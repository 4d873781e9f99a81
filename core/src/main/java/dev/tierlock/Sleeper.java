package dev.tierlock;

import java.time.Duration;

/**
 * Waits for a while. Injected wherever Tierlock waits (lock retries, backoff), so that tests
 * advance a clock instead of sleeping for real.
 */
@FunctionalInterface
public interface Sleeper {

  /** A sleeper that really sleeps. */
  Sleeper SYSTEM = duration -> {
    if (!duration.isNegative() && !duration.isZero()) {
      Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);
    }
  };

  /**
   * Waits for {@code duration}; returns at once for a zero or negative duration.
   *
   * @param duration how long to wait
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  void sleep(Duration duration) throws InterruptedException;
}
