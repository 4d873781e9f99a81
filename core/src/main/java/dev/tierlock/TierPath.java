package dev.tierlock;

import dev.tierlock.spi.ObjectKey;

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

  @Override
  public int compareTo(TierPath other) {
    return value.compareTo(other.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
