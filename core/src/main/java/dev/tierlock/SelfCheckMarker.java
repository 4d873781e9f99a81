package dev.tierlock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A checkout's record that a datastore passed the precondition self-check ({@link
 * SelfCheckedDatastore}): JSON {@code {"datastore":..., "checkedAt":...}} in the state directory
 * ({@value #FILE_NAME}), trusted for {@link #TTL} after the check, so that a short-lived process (a
 * command-line call) does not pay the check's round trips each time. The datastore is identified
 * by {@link dev.tierlock.spi.Datastore#describe()}. A marker that cannot be read, names another
 * datastore, lies in the future or is older than the ttl is ignored. Thread-safe (each call is one
 * atomic file operation).
 */
final class SelfCheckMarker {

  /** The marker's file name in the state directory. */
  static final String FILE_NAME = "datastore-selfcheck.json";

  /** How long a passed check is trusted. */
  static final Duration TTL = Duration.ofHours(24);

  private static final Logger LOG = LoggerFactory.getLogger(SelfCheckMarker.class);

  private final Path path;
  private final Clock clock;

  SelfCheckMarker(Path stateDirectory, Clock clock) {
    this.path = stateDirectory.resolve(FILE_NAME);
    this.clock = clock;
  }

  /** Returns whether {@code datastore} passed the check within the ttl, by the marker. */
  boolean isFresh(String datastore) {
    try {
      if (JsonValue.parse(Files.readString(path, StandardCharsets.UTF_8)) instanceof JsonValue.Obj obj
          && obj.members().get("datastore") instanceof JsonValue.Str name
          && obj.members().get("checkedAt") instanceof JsonValue.Str at
          && name.value().equals(datastore)) {
        Instant checked = Instant.parse(at.value());
        Instant now = clock.instant();
        return !checked.isAfter(now) && Duration.between(checked, now).compareTo(TTL) < 0;
      }
      return false;
    } catch (IOException | IllegalArgumentException | DateTimeParseException e) {
      return false;
    }
  }

  /** Records that {@code datastore} passed the check now; a failure to write is only logged. */
  void record(String datastore) {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("datastore", new JsonValue.Str(datastore));
    members.put("checkedAt", new JsonValue.Str(clock.instant().toString()));
    try {
      AtomicFileWriter.write(path, (new JsonValue.Obj(members).toCompactString() + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot record the datastore self-check in {}: {}; it runs again next time", path, e.getMessage());
    }
  }
}
