package dev.tierlock.testkit.gcs;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * GCS's limit on writes to one object name: a write (upload, patch or delete) of an object that
 * changed less than {@code interval} ago is refused. Each object of each bucket has its own budget;
 * only writes that changed the object count (answered 2xx), so a write refused for a failed
 * precondition, or past the rate, leaves the budget as it was. Not thread-safe: {@link GcsFaults}
 * calls it under its monitor.
 */
final class WriteRateLimit {

  private final Duration interval;
  private final Clock clock;
  private final Map<String, Instant> lastChanged = new HashMap<>();

  WriteRateLimit(Duration interval, Clock clock) {
    this.interval = interval;
    this.clock = clock;
  }

  /** Returns whether {@code request} may be served now; requests that write nothing always may. */
  boolean admits(GcsRequest request) {
    if (!request.isWrite()) {
      return true;
    }
    Instant last = lastChanged.get(object(request));
    return last == null || !clock.instant().isBefore(last.plus(interval));
  }

  /** Counts {@code request} against its object's budget if it is a write that changed the object. */
  void served(GcsRequest request, int status) {
    if (request.isWrite() && status >= 200 && status < 300) {
      lastChanged.put(object(request), clock.instant());
    }
  }

  private static String object(GcsRequest request) {
    return request.bucket() + "/" + request.object();
  }
}
