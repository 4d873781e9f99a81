package dev.tierlock.datastore.gcs;

import dev.tierlock.spi.ObjectKey;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a GCS datastore lives: a bucket and a prefix (empty, or segments joined by {@code /}).
 * Maps keys to object names and back, applying the prefix exactly once. Immutable.
 *
 * @param bucket the bucket name
 * @param prefix the prefix without leading or trailing {@code /}, possibly empty
 */
record GcsLocation(String bucket, String prefix) {

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]");

  /**
   * Validates the bucket and the prefix.
   *
   * @throws IllegalArgumentException if the bucket name or the prefix is invalid
   */
  GcsLocation {
    if (!BUCKET.matcher(bucket).matches()) {
      throw new IllegalArgumentException("Cannot use GCS bucket \"" + bucket
          + "\": a bucket name is 3 to 222 lowercase letters, digits, '-', '_' or '.', starting and ending with a"
          + " letter or digit");
    }
    if (!prefix.isEmpty() && !ObjectKey.isValid(prefix)) {
      throw new IllegalArgumentException("Cannot use GCS prefix \"" + prefix + "\" in bucket " + bucket
          + ": a prefix is empty or a valid key (segments joined by '/', none empty, '.' or '..')");
    }
  }

  /**
   * Returns a location, stripping one leading and one trailing {@code /} from the prefix.
   *
   * @throws IllegalArgumentException if the bucket name or the prefix is invalid
   */
  static GcsLocation of(String bucket, String prefix) {
    String p = prefix.startsWith("/") ? prefix.substring(1) : prefix;
    p = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    return new GcsLocation(bucket, p);
  }

  /** Returns the object name of a key: the prefix, a {@code /} and the key. */
  String objectName(ObjectKey key) {
    return root() + key.value();
  }

  /** Returns the object name prefix of a listing prefix. */
  String listingPrefix(String keyPrefix) {
    return root() + keyPrefix;
  }

  /** Returns the key of an object name, or empty when the name is outside the prefix or no valid key. */
  Optional<ObjectKey> keyOf(String objectName) {
    String root = root();
    if (!objectName.startsWith(root)) {
      return Optional.empty();
    }
    String rest = objectName.substring(root.length());
    return ObjectKey.isValid(rest) ? Optional.of(ObjectKey.of(rest)) : Optional.empty();
  }

  /** Returns {@code gs://bucket/prefix}. */
  @Override
  public String toString() {
    return "gs://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
  }

  private String root() {
    return prefix.isEmpty() ? "" : prefix + "/";
  }
}
