package dev.tierlock.internal;

import dev.tierlock.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** A clock that moves only when told to, and a sleeper that moves it instead of sleeping. Thread-safe. */
final class ManualTime extends Clock {

  static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private Instant now = START;
  private final List<Duration> sleeps = new ArrayList<>();

  synchronized void advance(Duration d) {
    now = now.plus(d);
  }

  /** A sleeper that advances this clock by each sleep and records it; an interrupted thread gets InterruptedException. */
  Sleeper sleeper() {
    return d -> {
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted before a manual sleep of " + d);
      }
      synchronized (this) {
        sleeps.add(d);
        now = now.plus(d);
      }
    };
  }

  synchronized List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }

  /** A wait until {@code budget} from now, polling every {@code poll}. */
  OsLockRegistry.Wait waitFor(Duration budget, Duration poll) {
    return OsLockRegistry.Wait.until(instant().plus(budget), this, sleeper()::sleep, poll);
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
