package dev.tierlock;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * JSON text written straight into a growing array of UTF-8 bytes, formatted as {@code
 * JSON.stringify} formats it: strings escaped as {@link JsonValue#quote} escapes them, values pretty
 * ({@code JSON.stringify(value, null, unit)} with a chosen line ending, nested under a line's
 * indentation) or compact. No intermediate {@link String} of the text is made. Not thread-safe: one
 * writer fills one array.
 */
final class JsonOutput {

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /** Which ASCII characters a string literal holds as they are: all but controls, quote and backslash. */
  private static final boolean[] PLAIN = new boolean[0x80];

  static {
    for (char c = 0x20; c < 0x80; c++) {
      PLAIN[c] = c != '"' && c != '\\';
    }
  }

  private byte[] buffer;
  private int size;
  private char[] scratch = new char[64];

  /** Starts an empty output with room for {@code capacity} bytes (it grows as needed). */
  JsonOutput(int capacity) {
    this.buffer = new byte[Math.max(16, capacity)];
  }

  /** Returns the number of bytes written. */
  int size() {
    return size;
  }

  /**
   * Returns the array written into: its first {@link #size()} bytes are the output. The array is
   * handed over: once a caller keeps it, nothing may be written to this output any more.
   */
  byte[] array() {
    return buffer;
  }

  /** Returns a copy of the bytes written. */
  byte[] toByteArray() {
    return Arrays.copyOf(buffer, size);
  }

  private void ensure(int more) {
    if (size + more > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + more));
    }
  }

  /** Appends one ASCII byte. */
  JsonOutput write(char c) {
    ensure(1);
    buffer[size++] = (byte) c;
    return this;
  }

  /** Appends bytes as they are. */
  JsonOutput write(byte[] bytes) {
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buffer, size, bytes.length);
    size += bytes.length;
    return this;
  }

  /** Appends {@code text} encoded as UTF-8, unescaped (whitespace, punctuation, literals). */
  JsonOutput write(String text) {
    return write(text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Appends {@code text} as a JSON string literal, escaped exactly as {@code JSON.stringify} escapes
   * it (see {@link JsonValue#quote}), in UTF-8.
   */
  JsonOutput quote(String text) {
    int length = text.length();
    // every char takes at most 6 bytes (\\uXXXX); a surrogate pair takes 4 for its two chars
    ensure(length * 6 + 2);
    if (scratch.length < length) {
      scratch = new char[Math.max(length, scratch.length * 2)];
    }
    char[] chars = scratch;
    text.getChars(0, length, chars, 0);
    byte[] out = buffer;
    int at = size;
    out[at++] = '"';
    int i = 0;
    while (i < length) {
      char c = chars[i++];
      if (c < 0x80 && PLAIN[c]) {
        out[at++] = (byte) c;
      } else if (c < 0x80) {
        at = escape(c, out, at);
      } else if (c < 0x800) {
        out[at++] = (byte) (0xC0 | c >> 6);
        out[at++] = (byte) (0x80 | c & 0x3F);
      } else if (Character.isHighSurrogate(c) && i < length && Character.isLowSurrogate(chars[i])) {
        int cp = Character.toCodePoint(c, chars[i++]);
        out[at++] = (byte) (0xF0 | cp >> 18);
        out[at++] = (byte) (0x80 | cp >> 12 & 0x3F);
        out[at++] = (byte) (0x80 | cp >> 6 & 0x3F);
        out[at++] = (byte) (0x80 | cp & 0x3F);
      } else if (Character.isSurrogate(c)) {
        at = unicodeEscape(c, out, at);
      } else {
        out[at++] = (byte) (0xE0 | c >> 12);
        out[at++] = (byte) (0x80 | c >> 6 & 0x3F);
        out[at++] = (byte) (0x80 | c & 0x3F);
      }
    }
    out[at++] = '"';
    size = at;
    return this;
  }

  private static int escape(char c, byte[] out, int at) {
    char shortForm = switch (c) {
      case '"' -> '"';
      case '\\' -> '\\';
      case '\b' -> 'b';
      case '\f' -> 'f';
      case '\n' -> 'n';
      case '\r' -> 'r';
      case '\t' -> 't';
      default -> 0;
    };
    if (shortForm == 0) {
      return unicodeEscape(c, out, at);
    }
    out[at] = '\\';
    out[at + 1] = (byte) shortForm;
    return at + 2;
  }

  private static int unicodeEscape(char c, byte[] out, int at) {
    out[at] = '\\';
    out[at + 1] = 'u';
    out[at + 2] = HEX[c >> 12 & 0xF];
    out[at + 3] = HEX[c >> 8 & 0xF];
    out[at + 4] = HEX[c >> 4 & 0xF];
    out[at + 5] = HEX[c & 0xF];
    return at + 6;
  }

  /**
   * Appends {@code value} as {@code JSON.stringify(value, null, unit)} writes it, nested {@code
   * depth} levels under {@code indentation}'s base.
   */
  JsonOutput pretty(JsonValue value, Indentation indentation, int depth) {
    if (value instanceof JsonValue.Obj obj) {
      if (obj.members().isEmpty()) {
        return write('{').write('}');
      }
      write('{');
      boolean first = true;
      for (Map.Entry<String, JsonValue> member : obj.members().entrySet()) {
        if (!first) {
          write(',');
        }
        first = false;
        indentation.line(this, depth + 1);
        quote(member.getKey()).write(':').write(' ');
        pretty(member.getValue(), indentation, depth + 1);
      }
      indentation.line(this, depth);
      return write('}');
    }
    if (value instanceof JsonValue.Arr arr) {
      if (arr.items().isEmpty()) {
        return write('[').write(']');
      }
      write('[');
      for (int i = 0; i < arr.items().size(); i++) {
        if (i > 0) {
          write(',');
        }
        indentation.line(this, depth + 1);
        pretty(arr.items().get(i), indentation, depth + 1);
      }
      indentation.line(this, depth);
      return write(']');
    }
    return scalar(value);
  }

  /** Appends {@code value} as {@code JSON.stringify(value)} writes it: compact, members in order. */
  JsonOutput compact(JsonValue value) {
    if (value instanceof JsonValue.Obj obj) {
      write('{');
      boolean first = true;
      for (Map.Entry<String, JsonValue> member : obj.members().entrySet()) {
        if (!first) {
          write(',');
        }
        first = false;
        quote(member.getKey()).write(':');
        compact(member.getValue());
      }
      return write('}');
    }
    if (value instanceof JsonValue.Arr arr) {
      write('[');
      for (int i = 0; i < arr.items().size(); i++) {
        if (i > 0) {
          write(',');
        }
        compact(arr.items().get(i));
      }
      return write(']');
    }
    return scalar(value);
  }

  private JsonOutput scalar(JsonValue value) {
    if (value instanceof JsonValue.Str str) {
      return quote(str.value());
    }
    if (value instanceof JsonValue.Num num) {
      return write(num.literal());
    }
    return write(value == JsonValue.Literal.TRUE ? "true" : value == JsonValue.Literal.FALSE ? "false" : "null");
  }

  /**
   * How pretty output breaks and indents lines: a line ending, the indentation of the line a value
   * starts on, and one level of indentation. Holds the bytes of each depth's line start once made.
   * Not thread-safe.
   */
  static final class Indentation {

    private final byte[] eol;
    private final byte[] base;
    private final byte[] unit;
    private byte[][] lines = new byte[4][];

    Indentation(String eol, String base, String unit) {
      this.eol = eol.getBytes(StandardCharsets.UTF_8);
      this.base = base.getBytes(StandardCharsets.UTF_8);
      this.unit = unit.getBytes(StandardCharsets.UTF_8);
    }

    /** Writes a line break and the indentation of {@code depth} levels under the base. */
    void line(JsonOutput out, int depth) {
      if (depth >= lines.length) {
        lines = Arrays.copyOf(lines, depth + 4);
      }
      byte[] line = lines[depth];
      if (line == null) {
        line = new byte[eol.length + base.length + depth * unit.length];
        System.arraycopy(eol, 0, line, 0, eol.length);
        System.arraycopy(base, 0, line, eol.length, base.length);
        for (int i = 0; i < depth; i++) {
          System.arraycopy(unit, 0, line, eol.length + base.length + i * unit.length, unit.length);
        }
        lines[depth] = line;
      }
      out.write(line);
    }
  }
}
