package dev.tierlock;

import dev.tierlock.internal.AtomicFileWriter;

import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A checkout's memory of the last precondition self-check verdict ({@link SelfCheckedDatastore}),
 * so that a short-lived process (a command-line call) does not pay the check each time: JSON
 * {@code {"store":..., "token":..., "version":..., "checkedAt":...}} in the state directory
 * ({@value #FILE_NAME}). The store is named by its identity and namespace; the token and version
 * are those of the verdict object the check left in the store, which a later process must find
 * there unchanged before it trusts the verdict. A marker that cannot be read or names another store
 * is ignored. Thread-safe (each call is one atomic file operation).
 */
final class SelfCheckMarker {

  /** The marker's file name in the state directory. */
  static final String FILE_NAME = "datastore-selfcheck.json";

  private static final Logger LOG = LoggerFactory.getLogger(SelfCheckMarker.class);

  private final Path path;

  SelfCheckMarker(Path stateDirectory) {
    this.path = stateDirectory.resolve(FILE_NAME);
  }

  /** Returns the verdict recorded for {@code store}, if the marker holds one. */
  Optional<SelfCheckedDatastore.Verdict> read(String store) {
    try {
      if (JsonValue.parse(Files.readString(path, StandardCharsets.UTF_8)) instanceof JsonValue.Obj obj
          && obj.members().get("store") instanceof JsonValue.Str name && name.value().equals(store)
          && obj.members().get("token") instanceof JsonValue.Str token && !token.value().isBlank()
          && obj.members().get("version") instanceof JsonValue.Str version && !version.value().isBlank()
          && obj.members().get("checkedAt") instanceof JsonValue.Str at) {
        return Optional.of(new SelfCheckedDatastore.Verdict(token.value(), ObjectVersion.of(version.value()),
            Instant.parse(at.value())));
      }
      return Optional.empty();
    } catch (IOException | IllegalArgumentException | DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** Records {@code verdict} for {@code store}; a failure to write is only logged. */
  void record(String store, SelfCheckedDatastore.Verdict verdict) {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("store", new JsonValue.Str(store));
    members.put("token", new JsonValue.Str(verdict.token()));
    members.put("version", new JsonValue.Str(verdict.version().value()));
    members.put("checkedAt", new JsonValue.Str(verdict.checkedAt().toString()));
    try {
      AtomicFileWriter.write(path, (new JsonValue.Obj(members).toCompactString() + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot record the datastore self-check in {}: {}; it is proven again next time", path, e.getMessage());
    }
  }
}
