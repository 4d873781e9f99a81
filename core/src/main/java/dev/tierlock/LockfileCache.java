package dev.tierlock;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A checkout's copy of the shared lockfile, so that a fetch can be a conditional read: the exact
 * bytes last fetched or published, in the cache directory laid out like the tier, and a record of
 * which version they are ({@value #RECORD_NAME} in the state directory: key, version, lineage and
 * the bytes' SHA-256). The pair is trusted only while the cached bytes still have the recorded
 * digest, so a copy changed or torn by anything is read again in full, never believed. The last
 * pair is also kept in memory, trusted while the record on disk still reads as it did (one small
 * read), so the cached copy is not decoded again, and another instance on the same checkout that
 * cached a newer version is never shadowed by an older memory.
 *
 * <p>Neither file is forced to disk: the cache only saves a download. The copy is replaced by an
 * atomic rename (it is laid out like the tier, for any reader of it); the record is rewritten in
 * place, with no rename: a record torn by a crash, or two writers' records overlapping, either does
 * not parse (one compact JSON object, nothing after it) or is one writer's record whole, and a
 * record whose digest the copy does not have is not believed. Thread-safe.
 */
final class LockfileCache {

  /** The record's file name in the state directory. */
  static final String RECORD_NAME = "lockfile-hydrated.json";

  /** What the cache holds: a version of the shared lockfile and its content. */
  record Entry(LockfileHead head, Lockfile lockfile) {}

  private final Path file;
  private final Path record;
  private final ObjectKey key;
  /**
   * The last pair, with the record's text as this instance wrote or read it: trusted only while the
   * record on disk still reads the same, so another instance (or process) on the same checkout that
   * cached a newer version since is never shadowed by this one's memory.
   */
  private volatile @Nullable Memo memo;

  private record Memo(Entry entry, String recordText) {}

  LockfileCache(Path file, Path stateDirectory, ObjectKey key) {
    this.file = file;
    this.record = stateDirectory.resolve(RECORD_NAME);
    this.key = key;
  }

  /** Returns the cached copy's file. */
  Path file() {
    return file;
  }

  /**
   * Returns what the cache holds, when it is intact: from memory while the record on disk is the
   * one this memory stands for (one small read), else from the two files.
   */
  Optional<Entry> current() {
    String onDisk = recordText();
    if (onDisk == null) {
      memo = null;
      return Optional.empty();
    }
    Memo known = memo;
    if (known != null && known.recordText().equals(onDisk)) {
      return Optional.of(known.entry());
    }
    Optional<Entry> read = readFiles(onDisk);
    memo = read.map(e -> new Memo(e, onDisk)).orElse(null);
    return read;
  }

  private @Nullable String recordText() {
    try {
      return Files.readString(record, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      // absent, unreadable or not text: only a missed shortcut
      return null;
    }
  }

  /**
   * Keeps {@code bytes} (which decode to {@code lockfile}) as version {@code head}: in memory, then
   * the copy, then the record.
   *
   * @throws LocalFileException if a file cannot be written (then nothing is trusted from memory)
   */
  void keep(byte[] bytes, LockfileHead head, Lockfile lockfile) {
    memo = null;
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("key", new JsonValue.Str(key.value()));
    members.put("version", new JsonValue.Str(head.version().value()));
    members.put("lineage", new JsonValue.Str(head.lineageText()));
    members.put("sha256", new JsonValue.Str(sha256(bytes)));
    String text = new JsonValue.Obj(members).toCompactString() + "\n";
    replace(file, bytes);
    rewrite(record, text.getBytes(StandardCharsets.UTF_8));
    memo = new Memo(new Entry(head, lockfile), text);
  }

  /**
   * Forgets what was cached (the shared lockfile is absent): removes the record, then the copy.
   *
   * @throws LocalFileException if either cannot be removed
   */
  void forget() {
    memo = null;
    try {
      Files.deleteIfExists(record);
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new LocalFileException("Cannot remove the cached lockfile " + file + ": " + e.getMessage(), e);
    }
  }

  private Optional<Entry> readFiles(String recordText) {
    try {
      if (!(JsonValue.parse(recordText) instanceof JsonValue.Obj obj)
          || !(obj.members().get("key") instanceof JsonValue.Str k) || !k.value().equals(key.value())
          || !(obj.members().get("version") instanceof JsonValue.Str version) || version.value().isBlank()
          || !(obj.members().get("sha256") instanceof JsonValue.Str sha)) {
        return Optional.empty();
      }
      String lineage = obj.members().get("lineage") instanceof JsonValue.Str l ? l.value() : "";
      byte[] bytes;
      try (InputStream in = Files.newInputStream(file)) {
        bytes = in.readNBytes(LockfileCodec.MAX_BYTES + 1);
      }
      if (bytes.length > LockfileCodec.MAX_BYTES || !sha256(bytes).equals(sha.value())) {
        return Optional.empty();
      }
      Lockfile lockfile = Lockfile.parse(bytes, file.toString());
      return Optional.of(new Entry(new LockfileHead(ObjectVersion.of(version.value()), LockfileHead.parse(lineage)),
          lockfile));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      // an unreadable, foreign or damaged cache is only a missed shortcut: read in full
      return Optional.empty();
    }
  }

  /** Rewrites {@code target} in place: truncated, then written, not forced. */
  private static void rewrite(Path target, byte[] bytes) {
    try {
      Files.createDirectories(target.toAbsolutePath().getParent());
      Files.write(target, bytes);
    } catch (IOException e) {
      throw new LocalFileException("Cannot write " + target + ": " + e.getMessage(), e);
    }
  }

  private static void replace(Path target, byte[] bytes) {
    Path temp = null;
    try {
      Path dir = target.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      temp = dir.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
      Files.write(temp, bytes);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      temp = null;
    } catch (IOException e) {
      throw new LocalFileException("Cannot write " + target + ": " + e.getMessage(), e);
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException ignored) {
          // a stray temp file in the cache is never read or published
        }
      }
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
