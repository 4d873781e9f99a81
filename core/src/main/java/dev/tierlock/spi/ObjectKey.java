package dev.tierlock.spi;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A key in a datastore, relative to the datastore's own root (its bucket and prefix).
 *
 * <p>A key is one or more segments joined by {@code /}. A segment is never empty, {@code .} or
 * {@code ..}, and no key holds a backslash, a control character or a leading or trailing
 * {@code /}; at most 1024 bytes of UTF-8. A key so validated can be appended to any prefix without
 * escaping it. Immutable and thread-safe.
 *
 * @param value the key text
 */
public record ObjectKey(String value) implements Comparable<ObjectKey> {

  /** The longest key, in UTF-8 bytes, that every supported store accepts. */
  public static final int MAX_BYTES = 1024;

  /**
   * Validates the key.
   *
   * @param value the key text
   * @throws IllegalArgumentException if the key breaks a rule; the message names the rule
   */
  public ObjectKey {
    String problem = problemWith(value);
    if (problem != null) {
      throw new IllegalArgumentException("Cannot use object key \"" + printable(value) + "\": " + problem);
    }
  }

  /**
   * Parses a key.
   *
   * @param value the key text
   * @return the key
   * @throws IllegalArgumentException if the key breaks a rule
   */
  public static ObjectKey of(String value) {
    return new ObjectKey(value);
  }

  /**
   * {@return whether {@code value} is a valid key}
   *
   * @param value the text to check
   */
  public static boolean isValid(String value) {
    return problemWith(value) == null;
  }

  /**
   * Validates a listing prefix: empty (the whole datastore) or any text that a key may start with
   * (so {@code config/} and {@code config/pull} are both accepted).
   *
   * @param prefix the prefix to check
   * @return the prefix
   * @throws IllegalArgumentException if no valid key could start with it
   */
  public static String validatePrefix(String prefix) {
    if (prefix.isEmpty()) {
      return prefix;
    }
    String probe = prefix.endsWith("/") ? prefix + "x" : prefix;
    String problem = problemWith(probe);
    if (problem != null) {
      throw new IllegalArgumentException("Cannot list prefix \"" + printable(prefix) + "\": " + problem);
    }
    return prefix;
  }

  /**
   * {@return the key of a child: this key, a {@code /} and {@code relative}}
   *
   * @param relative the child's path below this key
   */
  public ObjectKey resolve(String relative) {
    return new ObjectKey(value + "/" + relative);
  }

  /**
   * {@return whether this key equals {@code other} or lies below it}
   *
   * @param other the key that may contain this one
   */
  public boolean isWithin(ObjectKey other) {
    return value.equals(other.value) || value.startsWith(other.value + "/");
  }

  /** {@return the last segment} */
  public String name() {
    int slash = value.lastIndexOf('/');
    return slash < 0 ? value : value.substring(slash + 1);
  }

  @Override
  public int compareTo(ObjectKey other) {
    return value.compareTo(other.value);
  }

  // equals and hashCode written out: a record's own are made at their first call (a bootstrap that
  // spins classes no start-up archive holds), which every command line run pays
  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof ObjectKey key && value.equals(key.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return value;
  }

  private static String problemWith(String value) {
    if (value.isEmpty()) {
      return "a key is never empty";
    }
    if (value.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
      return "a key is at most " + MAX_BYTES + " bytes of UTF-8";
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        return "a key holds no control character";
      }
      if (c == '\\') {
        return "a key holds no backslash";
      }
    }
    for (String segment : value.split("/", -1)) {
      if (segment.isEmpty()) {
        return "a key has no empty segment and no leading or trailing '/'";
      }
      if (segment.equals(".") || segment.equals("..")) {
        return "a key has no '.' or '..' segment";
      }
    }
    return null;
  }

  private static String printable(String value) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < value.length() && out.length() < 200; i++) {
      char c = value.charAt(i);
      out.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return out.toString();
  }
}
