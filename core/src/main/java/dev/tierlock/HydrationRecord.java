package dev.tierlock;

import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the last hydrate (or publish) of a checkout saw, kept in its state directory as JSON {@code
 * {"key":..., "version":..., "sha256":...}}: the lockfile's key, its version and the SHA-256 of the
 * bytes cached. A conditional read is used only while the cached bytes still have that digest.
 * A record that cannot be read counts as none. Not thread-safe (the port serialises).
 */
final class HydrationRecord {

  /**
   * One record.
   *
   * @param key the lockfile's key
   * @param version its version when cached
   * @param sha256 the digest of the cached bytes
   */
  record Seen(String key, ObjectVersion version, String sha256) {}

  private final Path path;

  HydrationRecord(Path path) {
    this.path = path;
  }

  Optional<Seen> read() {
    try {
      String text = Files.readString(path, StandardCharsets.UTF_8);
      if (JsonValue.parse(text) instanceof JsonValue.Obj obj
          && obj.members().get("key") instanceof JsonValue.Str key
          && obj.members().get("version") instanceof JsonValue.Str version
          && obj.members().get("sha256") instanceof JsonValue.Str sha
          && !version.value().isBlank()) {
        return Optional.of(new Seen(key.value(), ObjectVersion.of(version.value()), sha.value()));
      }
      return Optional.empty();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  void write(String key, ObjectVersion version, String sha256) {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("key", new JsonValue.Str(key));
    members.put("version", new JsonValue.Str(version.value()));
    members.put("sha256", new JsonValue.Str(sha256));
    try {
      AtomicFileWriter.write(path, (new JsonValue.Obj(members).toCompactString() + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new LocalFileException("Cannot write hydration record " + path + ": " + e.getMessage(), e);
    }
  }

  void clear() {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new LocalFileException("Cannot delete hydration record " + path + ": " + e.getMessage(), e);
    }
  }

  /** Returns the SHA-256 of a file's bytes, or empty when it cannot be read. */
  static Optional<String> digestOf(Path file) {
    try {
      return Optional.of(sha256(Files.readAllBytes(file)));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash: the JVM lacks SHA-256", e);
    }
  }
}
