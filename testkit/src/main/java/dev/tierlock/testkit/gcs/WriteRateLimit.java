package dev.tierlock.testkit.gcs;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * GCS's limit on writes to one object name: a write (upload, patch or delete) of an object that a
 * write let through less than {@code interval} ago is refused. Each object of each bucket has its
 * own budget; a refused write does not count, a write let through counts whatever the store then
 * answers (a failed precondition too). Not thread-safe: {@link GcsFaults} calls it under its
 * monitor.
 */
final class WriteRateLimit {

  private final Duration interval;
  private final Clock clock;
  private final Map<String, Instant> lastAdmitted = new HashMap<>();

  WriteRateLimit(Duration interval, Clock clock) {
    this.interval = interval;
    this.clock = clock;
  }

  /** Returns whether {@code request} may be served now, counting it if so; requests that write nothing always may. */
  boolean admits(GcsRequest request) {
    if (!request.isWrite()) {
      return true;
    }
    String object = request.bucket() + "/" + request.object();
    Instant now = clock.instant();
    Instant last = lastAdmitted.get(object);
    if (last != null && now.isBefore(last.plus(interval))) {
      return false;
    }
    lastAdmitted.put(object, now);
    return true;
  }
}
