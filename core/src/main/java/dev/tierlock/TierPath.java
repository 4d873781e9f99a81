package dev.tierlock;

import dev.tierlock.spi.ObjectKey;
import java.util.Optional;

/**
 * A path inside the config tier, relative to the namespace root and always under {@code config/}:
 * {@code config/upstream_extensions.json}, {@code config/pulled-archives/@a/b/<sha256>.tar.gz}.
 * Internal names (locks, temp, staging, journal and pending files) are never tier paths, so they can
 * never be published. Immutable.
 *
 * @param value the path text, segments joined by {@code /}
 */
public record TierPath(String value) implements Comparable<TierPath> {

  /** The tier path of the shared lockfile. */
  public static final TierPath LOCKFILE = new TierPath("config/upstream_extensions.json");

  /** The tier directory of every extension archive: {@code config/pulled-archives/<name>/<sha256>.tar.gz}. */
  public static final String ARCHIVES = "config/pulled-archives";

  /** The file name suffix of every extension archive. */
  public static final String ARCHIVE_SUFFIX = ".tar.gz";

  /**
   * Validates the path.
   *
   * @param value the path text, segments joined by {@code /}
   * @throws IllegalArgumentException if it is not a valid key under {@code config/}, or names an
   *     internal file
   */
  public TierPath {
    if (!ObjectKey.isValid(value) || !value.startsWith("config/")) {
      throw new IllegalArgumentException("Cannot use tier path \"" + value + "\": a tier path is a valid key under config/");
    }
    String internal = internalReason(value);
    if (internal != null) {
      throw new IllegalArgumentException("Cannot use tier path \"" + value + "\": " + internal);
    }
  }

  /**
   * Parses a tier path.
   *
   * @param value the path text
   * @return the tier path
   * @throws IllegalArgumentException if it breaks a rule
   */
  public static TierPath of(String value) {
    return new TierPath(value);
  }

  /**
   * Returns why a path names an internal file that must never leave the checkout, or {@code null}
   * when it does not: any segment that is {@code .lock}, ends in {@code .lock}, {@code .tmp} or
   * {@code .journal}, starts with {@code .tierlock} or {@code .swamp}, or is {@code
   * .datastore.lock}.
   */
  static String internalReason(String value) {
    for (String segment : value.split("/")) {
      if (segment.endsWith(".lock")) {
        return "lock files never leave the checkout";
      }
      if (segment.endsWith(".tmp") || segment.endsWith(".journal") || segment.endsWith(".partial")) {
        return "temp and journal files never leave the checkout";
      }
      if (segment.startsWith(".tierlock") || segment.startsWith(".swamp")) {
        return "state-directory files never leave the checkout";
      }
    }
    return null;
  }

  /**
   * {@return whether a datastore-relative or cache-relative path names an internal file}
   *
   * @param relativePath a path relative to the datastore root or the cache root, {@code
   *     /}-separated
   */
  public static boolean isInternal(String relativePath) {
    return internalReason(relativePath) != null;
  }

  /**
   * {@return the extension whose archive this path names, when it is exactly an extension archive's
   * path ({@code config/pulled-archives/<name>/<sha256>.tar.gz}, a valid name and a SHA-256 of 64
   * lowercase hex characters); else empty}
   */
  public Optional<ExtensionName> archiveOf() {
    return archiveParts().map(parts -> ExtensionName.of(parts[0]));
  }

  /**
   * {@return the SHA-256 of the archive this path names, when it is exactly an extension archive's
   * path; else empty}
   */
  public Optional<String> archiveSha256() {
    return archiveParts().map(parts -> parts[1]);
  }

  /** Returns the name and digest text of an extension archive's path, or empty. */
  private Optional<String[]> archiveParts() {
    String prefix = ARCHIVES + "/";
    if (!value.startsWith(prefix) || !value.endsWith(ARCHIVE_SUFFIX)) {
      return Optional.empty();
    }
    String middle = value.substring(prefix.length(), value.length() - ARCHIVE_SUFFIX.length());
    int slash = middle.lastIndexOf('/');
    if (slash < 0) {
      return Optional.empty();
    }
    String name = middle.substring(0, slash);
    String digest = middle.substring(slash + 1);
    if (!ExtensionName.isValid(name) || !LockfileEntry.DIGEST.matcher(digest).matches()) {
      return Optional.empty();
    }
    return Optional.of(new String[] {name, digest});
  }

  @Override
  public int compareTo(TierPath other) {
    return value.compareTo(other.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
