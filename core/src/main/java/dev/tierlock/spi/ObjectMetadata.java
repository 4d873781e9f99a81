package dev.tierlock.spi;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * User metadata stored with an object (S3 {@code x-amz-meta-*}, GCS custom metadata). Names are
 * lowercase ASCII letters, digits and {@code -}, 1 to 64 characters; values are printable ASCII,
 * at most 256 characters; at most 16 entries. These limits fit every supported store. Immutable.
 *
 * @param values the entries, sorted by name
 */
public record ObjectMetadata(Map<String, String> values) {

  /** Metadata with no entries. */
  public static final ObjectMetadata EMPTY = new ObjectMetadata(Map.of());

  /** The metadata name that carries the commit id of a publish. */
  public static final String COMMIT_ID = "tierlock-commit-id";

  /**
   * Validates and copies the entries.
   *
   * @throws IllegalArgumentException if a name or value breaks a rule
   */
  public ObjectMetadata {
    if (values.size() > 16) {
      throw new IllegalArgumentException("Cannot use object metadata: at most 16 entries, got " + values.size());
    }
    TreeMap<String, String> copy = new TreeMap<>();
    for (Map.Entry<String, String> e : values.entrySet()) {
      String name = e.getKey();
      if (!name.matches("[a-z0-9-]{1,64}")) {
        throw new IllegalArgumentException(
            "Cannot use object metadata name \"" + name + "\": names match [a-z0-9-]{1,64}");
      }
      String value = e.getValue();
      if (value.length() > 256 || !value.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
        throw new IllegalArgumentException(
            "Cannot use object metadata value for \"" + name + "\": printable ASCII, at most 256 characters");
      }
      copy.put(name, value);
    }
    values = Collections.unmodifiableMap(copy);
  }

  /** Returns metadata with one entry. */
  public static ObjectMetadata of(String name, String value) {
    return new ObjectMetadata(Map.of(name, value));
  }

  /**
   * Returns metadata read from a store, whose names some stores report in other cases; names are
   * lowercased and entries that break the rules are dropped.
   */
  public static ObjectMetadata lenient(Map<String, String> raw) {
    TreeMap<String, String> kept = new TreeMap<>();
    raw.forEach((k, v) -> {
      String name = k.toLowerCase(Locale.ROOT);
      if (name.matches("[a-z0-9-]{1,64}") && v.length() <= 256 && v.chars().allMatch(c -> c >= 0x20 && c < 0x7f)
          && kept.size() < 16) {
        kept.put(name, v);
      }
    });
    return new ObjectMetadata(kept);
  }

  /** Returns the value of {@code name}, if present. */
  public Optional<String> get(String name) {
    return Optional.ofNullable(values.get(name));
  }
}
