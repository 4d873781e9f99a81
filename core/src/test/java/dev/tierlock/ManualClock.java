package dev.tierlock;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** A clock that moves only when told to, and a sleeper that moves it instead of sleeping. Thread-safe. */
final class ManualClock extends Clock {

  private Instant now;
  private final List<Duration> sleeps = new ArrayList<>();

  ManualClock(Instant start) {
    this.now = start;
  }

  static ManualClock create() {
    return new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  }

  synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  /** A sleeper that advances this clock by each sleep and records it. */
  Sleeper sleeper() {
    return d -> {
      synchronized (this) {
        sleeps.add(d);
        now = now.plus(d);
      }
    };
  }

  synchronized List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }

  @Override
  public synchronized Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new IllegalArgumentException("Cannot change the zone of a manual clock");
  }
}
