package dev.tierlock;

import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the last hydrate (or publish) of a checkout saw, kept in its state directory: a record, JSON
 * {@code {"key":..., "version":..., "sha256":..., "lineage":...}} (the lockfile's key, its version,
 * the SHA-256 of the bytes cached and the commit lineage the version carries), and a copy of those
 * bytes. A conditional read is used only while the cached bytes still have that digest; the copy is
 * the base a local change is recovered against when the pending record is lost. The copy is written
 * before the record, so a copy whose digest is not the record's is stale and ignored. A record that
 * cannot be read counts as none. Not thread-safe (the port serialises).
 */
final class HydrationRecord {

  /** The record's file name in the state directory. */
  static final String FILE_NAME = "lockfile-hydrated.json";

  /** The copy's file name in the state directory. */
  static final String COPY_FILE_NAME = "lockfile-hydrated-copy.json";

  /**
   * One record.
   *
   * @param key the lockfile's key
   * @param head its version and lineage when cached
   * @param sha256 the digest of the cached bytes
   */
  record Seen(String key, LockfileHead head, String sha256) {}

  private final Path path;
  private final Path copy;

  HydrationRecord(Path stateDirectory) {
    this.path = stateDirectory.resolve(FILE_NAME);
    this.copy = stateDirectory.resolve(COPY_FILE_NAME);
  }

  Optional<Seen> read() {
    try {
      String text = Files.readString(path, StandardCharsets.UTF_8);
      if (JsonValue.parse(text) instanceof JsonValue.Obj obj
          && obj.members().get("key") instanceof JsonValue.Str key
          && obj.members().get("version") instanceof JsonValue.Str version
          && obj.members().get("sha256") instanceof JsonValue.Str sha
          && !version.value().isBlank()) {
        String lineage = obj.members().get("lineage") instanceof JsonValue.Str l ? l.value() : "";
        LockfileHead head = new LockfileHead(ObjectVersion.of(version.value()), LockfileHead.parse(lineage));
        return Optional.of(new Seen(key.value(), head, sha.value()));
      }
      return Optional.empty();
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * Remembers that the cache holds {@code bytes}, which are {@code head} of {@code key}: writes the
   * copy, then the record.
   *
   * @throws LocalFileException if either cannot be written
   */
  void write(String key, LockfileHead head, byte[] bytes) {
    String sha256 = sha256(bytes);
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("key", new JsonValue.Str(key));
    members.put("version", new JsonValue.Str(head.version().value()));
    members.put("sha256", new JsonValue.Str(sha256));
    members.put("lineage", new JsonValue.Str(head.lineageText()));
    try {
      if (!Arrays.equals(readCopy().orElse(null), bytes)) {
        AtomicFileWriter.write(copy, bytes);
      }
      AtomicFileWriter.write(path, (new JsonValue.Obj(members).toCompactString() + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new LocalFileException("Cannot write hydration record " + path + ": " + e.getMessage(), e);
    }
  }

  /**
   * Forgets what was seen (the next hydrate reads in full).
   *
   * @throws LocalFileException if the record cannot be deleted
   */
  void clear() {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new LocalFileException("Cannot delete hydration record " + path + ": " + e.getMessage(), e);
    }
  }

  /**
   * Returns the bytes of {@code key} last hydrated or published, when the copy is intact: its digest
   * is the record's.
   */
  Optional<byte[]> seenBytes(String key) {
    Optional<Seen> seen = read().filter(s -> s.key().equals(key));
    if (seen.isEmpty()) {
      return Optional.empty();
    }
    return readCopy().filter(bytes -> sha256(bytes).equals(seen.get().sha256()));
  }

  private Optional<byte[]> readCopy() {
    try {
      return Optional.of(Files.readAllBytes(copy));
    } catch (IOException e) {
      return Optional.empty();
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
