package dev.tierlock.datastore.fs;

import dev.tierlock.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where everything lives under a datastore root: objects as plain files at {@code <root>/<key>},
 * and, in the internal directory {@code <root>/.tierlock/} that is never an object, the per-key
 * claims ({@code claims/<sha256 of key>/}, see {@link KeyClaims}), the per-key OS lock files that
 * earlier versions exclude each other with ({@code locks/<sha256 of key>.lock}, see {@link
 * KeyLocks}), metadata sidecars ({@code meta/<sha256 of key>.meta}) and the temp files and
 * directories of writes in flight ({@code tmp/}, see {@link TempFiles}). The internal directories
 * are created by the first write that needs them, never by opening or reading. Refuses keys that
 * cannot live on a filesystem beside that layout. Immutable.
 */
final class RootLayout {

  /** The name of the internal directory; reserved as a key segment in any letter case. */
  static final String INTERNAL = ".tierlock";

  /** The longest file name (in UTF-8 bytes) most filesystems accept. */
  static final int MAX_SEGMENT_BYTES = 255;

  /**
   * The temp files that earlier versions of this datastore staged beside their objects ({@code
   * .<name>.<uuid>.tmp}); one may still lie in an old root, so such a name is never an object.
   */
  private static final Pattern LEGACY_TEMP =
      Pattern.compile("\\..+\\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp");

  private final Path root;
  private final String describe;
  private final Path internal;
  private final Path locks;
  private final Path claims;
  private final Path meta;
  private final Path tmp;

  RootLayout(Path root) {
    this.root = root;
    this.describe = root.toUri().toString();
    this.internal = root.resolve(INTERNAL);
    this.locks = internal.resolve("locks");
    this.claims = internal.resolve("claims");
    this.meta = internal.resolve("meta");
    this.tmp = internal.resolve("tmp");
  }

  Path root() {
    return root;
  }

  /** Returns the root as a URI, for messages. */
  String describe() {
    return describe;
  }

  Path internal() {
    return internal;
  }

  Path lockDirectory() {
    return locks;
  }

  Path claimsDirectory() {
    return claims;
  }

  Path metaDirectory() {
    return meta;
  }

  /** Returns the directory of the temp files that writes stage their bytes in. */
  Path tmpDirectory() {
    return tmp;
  }

  /** Returns the OS lock file that guards changes to {@code key} against writers of earlier versions. */
  Path lockFile(ObjectKey key) {
    return locks.resolve(Digests.ofKey(key.value()) + ".lock");
  }

  /** Returns the directory whose one entry, while a writer holds it, is that writer's claim on {@code key}. */
  Path claimSlot(ObjectKey key) {
    return claims.resolve(Digests.ofKey(key.value()));
  }

  /** Returns the metadata sidecar of {@code key}. */
  Path sidecar(ObjectKey key) {
    return meta.resolve(Digests.ofKey(key.value()) + ".meta");
  }

  /**
   * Returns the file of the object at {@code key}.
   *
   * @param verb what the caller is doing, for the message ({@code read}, {@code write} ...)
   * @throws IllegalArgumentException if the key names the internal directory, has a segment that
   *     looks like a temp file or is too long for a file name, or is not a valid path here
   */
  Path objectPath(ObjectKey key, String verb) {
    String[] segments = key.value().split("/");
    Path path = root;
    for (int i = 0; i < segments.length; i++) {
      String segment = segments[i];
      @Nullable String problem = problemWith(segment);
      if (problem != null) {
        throw refused(verb, key, problem, null);
      }
      try {
        path = path.resolve(segment);
      } catch (InvalidPathException e) {
        throw refused(verb, key, "it is not a valid file name on this filesystem (" + e.getReason() + ")", e);
      }
    }
    if (!path.startsWith(root) || path.getNameCount() != root.getNameCount() + segments.length) {
      throw refused(verb, key, "it does not resolve to a file below the root", null);
    }
    return path;
  }

  /**
   * Returns the key of the nearest ancestor of {@code key} that exists as a regular file: on a
   * filesystem a file cannot also be a directory, so no object can exist below it.
   */
  Optional<ObjectKey> fileAncestor(ObjectKey key) {
    String value = key.value();
    for (int slash = value.indexOf('/'); slash >= 0; slash = value.indexOf('/', slash + 1)) {
      ObjectKey ancestor = ObjectKey.of(value.substring(0, slash));
      Path path;
      try {
        path = objectPath(ancestor, "read");
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
      if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.of(ancestor);
      }
    }
    return Optional.empty();
  }

  /**
   * Refuses a write of {@code key} (whose file is {@code target}) that would need a file where a
   * directory is, or the reverse.
   *
   * @throws IllegalArgumentException if objects exist below the key, or an object at a prefix of it
   */
  void refuseOccupied(ObjectKey key, Path target) {
    if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalArgumentException("Cannot write object " + key + " at " + describe
          + ": objects exist below it, and on a filesystem a key cannot be both an object and a directory");
    }
    Optional<ObjectKey> ancestor = fileAncestor(key);
    if (ancestor.isPresent()) {
      throw new IllegalArgumentException("Cannot write object " + key + " at " + describe + ": object "
          + ancestor.get() + " exists, and on a filesystem a key cannot be both an object and a directory");
    }
  }

  /**
   * Returns the key a file below the root holds, or empty for files that are not objects: the
   * internal directory, temp files, and names that are not valid keys.
   */
  Optional<ObjectKey> keyOf(Path file) {
    Path relative = root.relativize(file);
    StringBuilder key = new StringBuilder();
    for (int i = 0; i < relative.getNameCount(); i++) {
      String segment = relative.getName(i).toString();
      if (problemWith(segment) != null) {
        return Optional.empty();
      }
      if (i > 0) {
        key.append('/');
      }
      key.append(segment);
    }
    return ObjectKey.isValid(key.toString()) ? Optional.of(ObjectKey.of(key.toString())) : Optional.empty();
  }

  /** Returns whether a file name is that of a temp file an earlier version left beside an object. */
  static boolean isLegacyTemp(String fileName) {
    return LEGACY_TEMP.matcher(fileName).matches();
  }

  private static @Nullable String problemWith(String segment) {
    if (segment.toLowerCase(Locale.ROOT).equals(INTERNAL)) {
      return "the segment " + INTERNAL + " is reserved for the datastore's internal files";
    }
    if (isLegacyTemp(segment)) {
      return "the segment \"" + segment + "\" has the form of a temp file (.<name>.<uuid>.tmp)";
    }
    int bytes = segment.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_SEGMENT_BYTES) {
      return "a segment is at most " + MAX_SEGMENT_BYTES + " bytes of UTF-8, got " + bytes;
    }
    return null;
  }

  private IllegalArgumentException refused(String verb, ObjectKey key, String reason, @Nullable Exception cause) {
    IllegalArgumentException e = new IllegalArgumentException(
        "Cannot " + verb + " object " + key + " at " + describe + ": " + reason);
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }
}
