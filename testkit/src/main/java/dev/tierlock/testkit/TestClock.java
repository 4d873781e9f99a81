package dev.tierlock.testkit;

import dev.tierlock.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} that tests move by hand, with a {@link Sleeper} that advances it instead of
 * sleeping, so that no test waits for real time. Thread-safe; clocks made by {@link #withZone}
 * share the instant and the recorded sleeps.
 */
public final class TestClock extends Clock {

  /** Where {@link #create()} starts: 2026-01-01T00:00:00Z. */
  public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

  private final AtomicReference<Instant> now;
  private final List<Duration> sleeps;
  private final ZoneId zone;

  private TestClock(AtomicReference<Instant> now, List<Duration> sleeps, ZoneId zone) {
    this.now = now;
    this.sleeps = sleeps;
    this.zone = zone;
  }

  /**
   * {@return a clock in UTC standing at {@code start}}
   *
   * @param start the clock's first instant
   */
  public static TestClock at(Instant start) {
    return new TestClock(new AtomicReference<>(start), new ArrayList<>(), ZoneOffset.UTC);
  }

  /** {@return a clock in UTC standing at {@link #DEFAULT_START}} */
  public static TestClock create() {
    return at(DEFAULT_START);
  }

  /**
   * Moves the clock forward.
   *
   * @param duration how far to move it, not negative
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public void advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("Cannot advance the test clock by " + duration + ": time only moves forward");
    }
    now.updateAndGet(t -> t.plus(duration));
  }

  /**
   * Sets the clock to {@code instant}, which may lie in the past (to test a clock that jumps back).
   *
   * @param instant the clock's new instant
   */
  public void set(Instant instant) {
    now.set(instant);
  }

  /**
   * {@return a sleeper that, instead of sleeping, records the duration and advances this clock by it}
   * A zero or negative duration returns at once and is not recorded; an interrupted thread gets
   * {@link InterruptedException} (its flag cleared) and the clock does not move.
   */
  public Sleeper sleeper() {
    return duration -> {
      if (Thread.interrupted()) {
        throw new InterruptedException("Interrupted before a test-clock sleep of " + duration);
      }
      if (duration.isNegative() || duration.isZero()) {
        return;
      }
      synchronized (sleeps) {
        sleeps.add(duration);
        now.updateAndGet(t -> t.plus(duration));
      }
    };
  }

  /** {@return every duration {@link #sleeper()} slept, in order (an immutable snapshot)} */
  public List<Duration> sleeps() {
    synchronized (sleeps) {
      return List.copyOf(sleeps);
    }
  }

  /** {@return the sum of every duration {@link #sleeper()} slept} */
  public Duration slept() {
    return sleeps().stream().reduce(Duration.ZERO, Duration::plus);
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  /** Returns a clock in {@code zone} that shares this clock's instant and recorded sleeps. */
  @Override
  public TestClock withZone(ZoneId zone) {
    return new TestClock(now, sleeps, zone);
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public long millis() {
    return now.get().toEpochMilli();
  }

  @Override
  public String toString() {
    return "TestClock[" + now.get() + ", " + zone + "]";
  }
}
