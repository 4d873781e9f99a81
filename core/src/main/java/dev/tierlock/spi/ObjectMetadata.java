package dev.tierlock.spi;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * User metadata stored with an object (S3 {@code x-amz-meta-*}, GCS custom metadata). Names are
 * lowercase ASCII letters, digits and {@code -}, 1 to 64 characters; values are printable ASCII;
 * at most 16 entries and {@value #MAX_BYTES} bytes in all ({@link #byteSize()}). How much one
 * object may carry depends on the store ({@link Datastore#maxMetadataBytes()}: 2 KiB on S3, 8 KiB
 * on GCS); the store refuses more. Immutable.
 *
 * @param values the entries, sorted by name
 */
public record ObjectMetadata(Map<String, String> values) {

  /** Metadata with no entries. */
  public static final ObjectMetadata EMPTY = new ObjectMetadata(Map.of());

  /** The metadata name that carries the commit id of a publish. */
  public static final String COMMIT_ID = "tierlock-commit-id";

  /** The most bytes of names and values one metadata may hold, whatever the store. */
  public static final int MAX_BYTES = 8192;

  /** The most entries one metadata may hold. */
  public static final int MAX_ENTRIES = 16;

  /**
   * Validates and copies the entries.
   *
   * @param values the entries, sorted by name
   * @throws IllegalArgumentException if a name or value breaks a rule
   */
  public ObjectMetadata {
    if (values.size() > MAX_ENTRIES) {
      throw new IllegalArgumentException("Cannot use object metadata: at most " + MAX_ENTRIES + " entries, got "
          + values.size());
    }
    TreeMap<String, String> copy = new TreeMap<>();
    int bytes = 0;
    for (Map.Entry<String, String> e : values.entrySet()) {
      String name = e.getKey();
      if (!name.matches("[a-z0-9-]{1,64}")) {
        throw new IllegalArgumentException(
            "Cannot use object metadata name \"" + name + "\": names match [a-z0-9-]{1,64}");
      }
      String value = e.getValue();
      if (!isPrintableAscii(value)) {
        throw new IllegalArgumentException(
            "Cannot use object metadata value for \"" + name + "\": printable ASCII only");
      }
      bytes += name.length() + value.length();
      copy.put(name, value);
    }
    if (bytes > MAX_BYTES) {
      throw new IllegalArgumentException("Cannot use object metadata: " + bytes + " bytes of names and values, more than "
          + MAX_BYTES);
    }
    values = Collections.unmodifiableMap(copy);
  }

  /**
   * {@return metadata with one entry}
   *
   * @param name the entry's name
   * @param value the entry's value
   */
  public static ObjectMetadata of(String name, String value) {
    return new ObjectMetadata(Map.of(name, value));
  }

  /**
   * {@return metadata read from a store, whose names some stores report in other cases; names are
   * lowercased and entries that break the rules are dropped}
   *
   * @param raw the names and values as the store reported them
   */
  public static ObjectMetadata lenient(Map<String, String> raw) {
    TreeMap<String, String> kept = new TreeMap<>();
    int[] bytes = {0};
    raw.forEach((k, v) -> {
      String name = k.toLowerCase(Locale.ROOT);
      if (name.matches("[a-z0-9-]{1,64}") && isPrintableAscii(v) && kept.size() < MAX_ENTRIES
          && bytes[0] + name.length() + v.length() <= MAX_BYTES) {
        kept.put(name, v);
        bytes[0] += name.length() + v.length();
      }
    });
    return new ObjectMetadata(kept);
  }

  /**
   * Returns the size stores count against their limit: the UTF-8 bytes of every name and value
   * (names and values are ASCII, so one byte a character).
   *
   * @return the size in bytes
   */
  public int byteSize() {
    int bytes = 0;
    for (Map.Entry<String, String> e : values.entrySet()) {
      bytes += e.getKey().length() + e.getValue().length();
    }
    return bytes;
  }

  private static boolean isPrintableAscii(String value) {
    return value.chars().allMatch(c -> c >= 0x20 && c < 0x7f);
  }

  /**
   * {@return the value of {@code name}, if present}
   *
   * @param name the entry's name
   */
  public Optional<String> get(String name) {
    return Optional.ofNullable(values.get(name));
  }
}
