package dev.tierlock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JSON values out of UTF-8 bytes that the strict parse ({@link LockfileParser}) has already
 * accepted: well-formed UTF-8, well-formed JSON, no duplicate names. It repeats none of those
 * checks, so it must only be given such bytes; in return it reads a value in one pass over its bytes,
 * with no token objects, skips strings eight bytes at a time and decodes those without escapes by a
 * plain copy. Values come out as {@link JsonValue#read} reads them from the streaming parser: object
 * members in order, numbers as their literal text. Not thread-safe: one reader per read.
 */
final class JsonBytes {

  /** Field names every entry repeats, returned as these constants instead of new strings. */
  private static final String[] FIELDS = LockfileEntry.KNOWN_FIELDS.toArray(String[]::new);

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;
  private static final long QUOTES = ONES * '"';
  private static final long BACKSLASHES = ONES * '\\';

  private final byte[] bytes;
  private int at;

  private JsonBytes(byte[] bytes, int from) {
    this.bytes = bytes;
    this.at = from;
  }

  /** Returns the members of the object that starts at {@code from}, in document order. */
  static List<Map.Entry<String, JsonValue>> members(byte[] bytes, int from) {
    JsonBytes reader = new JsonBytes(bytes, from + 1);
    List<Map.Entry<String, JsonValue>> members = new ArrayList<>(FIELDS.length);
    if (reader.closes('}')) {
      return members;
    }
    do {
      String name = reader.name();
      members.add(Map.entry(name, reader.value()));
    } while (reader.next() == ',');
    return members;
  }

  /** Returns a description of the value whose first byte is {@code first}, as {@link LockfileParser#describe} gives it. */
  static String describe(byte first) {
    return switch (first) {
      case '{' -> "an object";
      case '[' -> "an array";
      case '"' -> "a string";
      case 't', 'f' -> "a boolean";
      case 'n' -> "null";
      default -> "a number";
    };
  }

  /** Skips whitespace; moves past {@code close} and returns true when it comes next. */
  private boolean closes(char close) {
    skipWhitespace();
    if (bytes[at] == close) {
      at++;
      return true;
    }
    return false;
  }

  /** Reads a member's name and the colon after it. */
  private String name() {
    skipWhitespace();
    String name = string(true);
    next();
    return name;
  }

  /** Skips whitespace; returns the byte after it and moves past that byte. */
  private byte next() {
    skipWhitespace();
    return bytes[at++];
  }

  private void skipWhitespace() {
    while (LockfileLayout.isWhitespace(bytes[at])) {
      at++;
    }
  }

  private JsonValue value() {
    skipWhitespace();
    byte first = bytes[at];
    switch (first) {
      case '{' -> {
        at++;
        Map<String, JsonValue> members = new LinkedHashMap<>();
        if (closes('}')) {
          return new JsonValue.Obj(members);
        }
        do {
          String name = name();
          members.put(name, value());
        } while (next() == ',');
        return new JsonValue.Obj(members);
      }
      case '[' -> {
        at++;
        if (closes(']')) {
          return new JsonValue.Arr(List.of());
        }
        List<JsonValue> items = new ArrayList<>(16);
        do {
          items.add(value());
        } while (next() == ',');
        return new JsonValue.Arr(items);
      }
      case '"' -> {
        return new JsonValue.Str(string(false));
      }
      case 't' -> {
        at += 4;
        return JsonValue.Literal.TRUE;
      }
      case 'f' -> {
        at += 5;
        return JsonValue.Literal.FALSE;
      }
      case 'n' -> {
        at += 4;
        return JsonValue.Literal.NULL;
      }
      default -> {
        int start = at;
        while (at < bytes.length && isNumberByte(bytes[at])) {
          at++;
        }
        return new JsonValue.Num(new String(bytes, start, at - start, StandardCharsets.ISO_8859_1));
      }
    }
  }

  /** Returns non-zero exactly when one of the eight bytes of {@code word} is zero. */
  private static long zeroByte(long word) {
    return (word - ONES) & ~word & HIGH_BITS;
  }

  private static boolean isNumberByte(byte b) {
    return b >= '0' && b <= '9' || b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E';
  }

  /** Reads the string literal the reader is on, decoded; a known field's name as its constant. */
  private String string(boolean name) {
    int start = ++at;
    boolean ascii = true;
    // eight bytes at a time while none is a quote, a backslash or part of a multi-byte character
    while (at + Long.BYTES <= bytes.length) {
      long word = (long) LONGS.get(bytes, at);
      if ((zeroByte(word ^ QUOTES) | zeroByte(word ^ BACKSLASHES) | word & HIGH_BITS) != 0) {
        break;
      }
      at += Long.BYTES;
    }
    byte b;
    while ((b = bytes[at]) != '"') {
      if (b == '\\') {
        return escaped(start);
      }
      ascii &= b >= 0;
      at++;
    }
    int length = at++ - start;
    if (!ascii) {
      return new String(bytes, start, length, StandardCharsets.UTF_8);
    }
    String known = name ? known(start, length) : null;
    return known != null ? known : new String(bytes, start, length, StandardCharsets.ISO_8859_1);
  }

  private @org.jspecify.annotations.Nullable String known(int start, int length) {
    for (String field : FIELDS) {
      if (field.length() == length && matches(field, start)) {
        return field;
      }
    }
    return null;
  }

  private boolean matches(String field, int start) {
    for (int i = 0; i < field.length(); i++) {
      if (bytes[start + i] != field.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Decodes a string literal that holds escapes, from its first byte {@code start} to its closing quote. */
  private String escaped(int start) {
    StringBuilder out = new StringBuilder(at - start + 16);
    int run = start;
    while (true) {
      byte b = bytes[at];
      if (b == '"') {
        out.append(new String(bytes, run, at - run, StandardCharsets.UTF_8));
        at++;
        return out.toString();
      }
      if (b != '\\') {
        at++;
        continue;
      }
      out.append(new String(bytes, run, at - run, StandardCharsets.UTF_8));
      byte kind = bytes[at + 1];
      at += 2;
      switch (kind) {
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          out.append((char) Integer.parseInt(new String(bytes, at, 4, StandardCharsets.ISO_8859_1), 16));
          at += 4;
        }
        default -> out.append((char) kind);
      }
      run = at;
    }
  }
}
