package dev.tierlock.datastore.fs;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a writer saw hold a key, and since when on its own clock: the claim in a key's slot. A claim
 * seen unchanged for the takeover bound is one whose writer stopped inside its write (or hung), and
 * is taken over. Only this
 * process's own clock is read, and only differences of its readings are used: another process's
 * clock, or a time it wrote down, never enters the judgement. A jump of the local clock can only
 * make a takeover come early or late, and a takeover is never what keeps a write safe (see {@link
 * KeyClaims}). Kept per datastore instance, so that the calls of one instance that retry a busy
 * key add up their waits. Thread-safe.
 */
final class Sightings {

  /**
   * One holder seen at a place.
   *
   * @param holder what names the holder (a claim's name, a lock file's text)
   * @param since when it was first seen, on this instance's clock
   */
  private record Sighting(String holder, Instant since) {}

  private final ConcurrentHashMap<Path, Sighting> seen = new ConcurrentHashMap<>();
  private final Clock clock;

  Sightings(Clock clock) {
    this.clock = clock;
  }

  /**
   * Records that {@code holder} holds {@code where} now, and returns for how long it has been seen
   * there without a change (zero when it is new, or when the clock went back since).
   */
  Duration see(Path where, String holder) {
    Instant now = clock.instant();
    Sighting sighting = seen.compute(where, (p, old) -> old != null && old.holder().equals(holder) && !now.isBefore(old.since())
        ? old : new Sighting(holder, now));
    return Duration.between(sighting.since(), now);
  }

  /** Forgets what was seen at {@code where}: it changed hands. */
  void forget(Path where) {
    seen.remove(where);
  }
}
