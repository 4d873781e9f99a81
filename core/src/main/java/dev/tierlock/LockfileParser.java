package dev.tierlock;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.ContentReference;
import com.fasterxml.jackson.core.io.JsonEOFException;
import dev.tierlock.LockfileDocument.Content;
import dev.tierlock.LockfileDocument.Member;
import dev.tierlock.internal.CodecTally;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Cuts lockfile bytes into a {@link LockfileDocument}: one pass of the strict streaming parser
 * ({@link JsonValue#FACTORY}) over the bytes, the byte offsets of its tokens giving the span of
 * every top-level member. The pass checks the whole file (UTF-8, JSON, duplicate names at every
 * depth) but reads no value: values are skipped token by token and no string is decoded. A member's
 * value is decoded only when its entry is first asked for ({@link #decode}), from the bytes the pass
 * accepted, into an entry, or kept as foreign when its key is not a valid name or its value does not
 * match the entry schema. Stateless and thread-safe.
 */
final class LockfileParser {

  private static final int BOM_LENGTH = 3;
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_BITS = 0x8080808080808080L;

  private LockfileParser() {}

  /** Returns whether {@code bytes} start with the UTF-8 byte order mark. */
  static boolean hasBom(byte[] bytes) {
    return bytes.length >= BOM_LENGTH && bytes[0] == (byte) 0xEF && bytes[1] == (byte) 0xBB && bytes[2] == (byte) 0xBF;
  }

  /**
   * Parses a lockfile.
   *
   * @param input the file's bytes, UTF-8, optionally with a byte order mark; not kept (copied)
   * @param source the file or object they came from, named in errors
   * @throws LockfileFormatException if the bytes are larger than {@link LockfileCodec#MAX_BYTES}, not
   *     UTF-8, not JSON, not one JSON object, or hold a duplicate member name
   */
  static LockfileDocument parse(byte[] input, String source) {
    if (input.length > LockfileCodec.MAX_BYTES) {
      throw new LockfileFormatException(source, "the file has " + input.length + " bytes, more than the limit of "
          + LockfileCodec.MAX_BYTES, 0, 0, null);
    }
    byte[] bytes = input.clone();
    CodecTally.parsed();
    boolean bom = hasBom(bytes);
    int bad = firstInvalidUtf8(bytes);
    if (bad >= 0) {
      int[] at = lineAndColumn(bytes, bad);
      throw problem(source, bom, "the file is not valid UTF-8: byte 0x" + Integer.toHexString(bytes[bad] & 0xFF)
          + " does not start a well-formed sequence", at[0], at[1], null);
    }
    try (JsonParser parser = JsonValue.FACTORY.createParser(bytes)) {
      JsonToken first = parser.nextToken();
      if (first != JsonToken.START_OBJECT) {
        throw problem(source, bom, "the file must contain a JSON object, found " + describe(first),
            parser.currentTokenLocation(), null);
      }
      int open = offset(parser);
      Cuts cuts = new Cuts();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        int keyStart = offset(parser);
        String key = parser.currentName();
        parser.nextToken();
        cuts.add(key, keyStart, offset(parser));
        parser.skipChildren();
      }
      int close = offset(parser);
      if (parser.nextToken() != null) {
        throw problem(source, bom, "unexpected content after the JSON object", parser.currentTokenLocation(), null);
      }
      return assemble(bytes, open, close, cuts);
    } catch (JsonProcessingException e) {
      throw failure(source, bom, bytes.length, e);
    } catch (IOException e) {
      throw new LockfileFormatException(source, "the bytes cannot be read: " + e.getMessage(), 0, 0, e);
    }
  }

  /**
   * The error for what the streaming parser refused. Bytes that end inside an array or object are
   * reported at the opening bracket of the innermost one left open, which is where a truncated or
   * hand-broken file is best repaired.
   */
  private static LockfileFormatException failure(String source, boolean bom, int length, JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    boolean atEnd = e instanceof JsonEOFException || (at != null && at.getByteOffset() >= length
        && String.valueOf(e.getOriginalMessage()).contains("end-of-input"));
    JsonStreamContext open = e.getProcessor() instanceof JsonParser p ? p.getParsingContext() : null;
    if (!atEnd || open == null || !(open.inArray() || open.inObject())) {
      return problem(source, bom, e.getOriginalMessage(), at, e);
    }
    return problem(source, bom, "unexpected end of input: the " + (open.inArray() ? "array" : "object")
        + " opened here is never closed", open.startLocation(ContentReference.unknown()), e);
  }

  /** Where each top-level member's key and value start, in file order. */
  private static final class Cuts {
    private String[] keys = new String[64];
    private int[] keyStarts = new int[64];
    private int[] valueStarts = new int[64];
    private int size;

    void add(String key, int keyStart, int valueStart) {
      if (size == keys.length) {
        keys = Arrays.copyOf(keys, size * 2);
        keyStarts = Arrays.copyOf(keyStarts, size * 2);
        valueStarts = Arrays.copyOf(valueStarts, size * 2);
      }
      keys[size] = key;
      keyStarts[size] = keyStart;
      valueStarts[size] = valueStart;
      size++;
    }
  }

  /**
   * Decodes what a parsed member holds from its value's bytes: its entry, or why it is foreign.
   *
   * @param key the member's key, decoded
   * @param value the member's value, bytes the parser accepted
   */
  static Content decode(String key, Span value) {
    CodecTally.decoded();
    ExtensionName name;
    try {
      name = ExtensionName.of(key);
    } catch (InvalidInputException e) {
      return foreign(key, "the key is not a valid extension name (names match " + ExtensionName.PATTERN.pattern()
          + " and have at most " + ExtensionName.MAX_LENGTH + " characters)", value);
    }
    byte first = value.array()[value.from()];
    if (first != '{') {
      return foreign(key, "the entry of " + name + " must be a JSON object, found " + JsonBytes.describe(first), value);
    }
    List<Map.Entry<String, JsonValue>> members = JsonBytes.members(value.array(), value.from());
    try {
      return new Content.Entry(name, LockfileCodec.entryFrom(name, members));
    } catch (LockfileCodec.EntryProblem p) {
      return foreign(key, oneLine(p.getMessage()), value);
    }
  }

  private static Content foreign(String key, String reason, Span value) {
    return new Content.Foreign(new Lockfile.Foreign(key, reason, value.toString()));
  }

  /** Cuts the spans: each value ends where the whitespace (and comma) before the next token starts. */
  private static LockfileDocument assemble(byte[] bytes, int open, int close, Cuts cuts) {
    List<Member> members = new ArrayList<>(cuts.size);
    int leadStart = open + 1;
    int end = leadStart;
    for (int i = 0; i < cuts.size; i++) {
      boolean last = i + 1 == cuts.size;
      int keyStart = cuts.keyStarts[i];
      int valueStart = cuts.valueStarts[i];
      end = skipWhitespaceBack(bytes, last ? close : cuts.keyStarts[i + 1]);
      int comma = end - 1;
      if (!last) {
        end = skipWhitespaceBack(bytes, comma);
      }
      members.add(new Member(cuts.keys[i], new Span(bytes, leadStart, keyStart), new Span(bytes, keyStart, valueStart),
          new Span(bytes, valueStart, end), last ? Span.EMPTY : new Span(bytes, end, comma)));
      leadStart = comma + 1;
    }
    LockfileLayout layout = LockfileLayout.detect(eol(bytes), hasLineBreak(bytes, open, close), members);
    return new LockfileDocument(new Span(bytes, 0, open + 1), members, new Span(bytes, end, close),
        new Span(bytes, close, bytes.length), layout);
  }

  private static int skipWhitespaceBack(byte[] bytes, int from) {
    int at = from;
    while (LockfileLayout.isWhitespace(bytes[at - 1])) {
      at--;
    }
    return at;
  }

  private static String eol(byte[] bytes) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '\n') {
        return "\n";
      }
      if (bytes[i] == '\r') {
        return i + 1 < bytes.length && bytes[i + 1] == '\n' ? "\r\n" : "\r";
      }
    }
    return "\n";
  }

  private static boolean hasLineBreak(byte[] bytes, int from, int to) {
    for (int i = from; i < to; i++) {
      if (bytes[i] == '\n' || bytes[i] == '\r') {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns the offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629:
   * no overlong forms, no surrogates, nothing above U+10FFFF), or -1 when all are well formed.
   */
  static int firstInvalidUtf8(byte[] bytes) {
    int i = 0;
    while (i < bytes.length) {
      if (i + Long.BYTES <= bytes.length && ((long) LONGS.get(bytes, i) & HIGH_BITS) == 0) {
        i += Long.BYTES;
        continue;
      }
      int c = bytes[i];
      if (c >= 0) {
        i++;
        continue;
      }
      c &= 0xFF;
      int more;
      int low = 0x80;
      int high = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) {
        more = 1;
      } else if (c >= 0xE0 && c <= 0xEF) {
        more = 2;
        low = c == 0xE0 ? 0xA0 : low;
        high = c == 0xED ? 0x9F : high;
      } else if (c >= 0xF0 && c <= 0xF4) {
        more = 3;
        low = c == 0xF0 ? 0x90 : low;
        high = c == 0xF4 ? 0x8F : high;
      } else {
        return i;
      }
      if (i + more >= bytes.length) {
        return i;
      }
      for (int k = 1; k <= more; k++) {
        int d = bytes[i + k] & 0xFF;
        if (d < (k == 1 ? low : 0x80) || d > (k == 1 ? high : 0xBF)) {
          return i;
        }
      }
      i += more + 1;
    }
    return -1;
  }

  /** Returns the 1-based line and byte column of {@code offset}, counting line breaks as the parser does. */
  private static int[] lineAndColumn(byte[] bytes, int offset) {
    int line = 1;
    int lineStart = 0;
    for (int i = 0; i < offset; i++) {
      if (bytes[i] == '\n' || (bytes[i] == '\r' && (i + 1 >= bytes.length || bytes[i + 1] != '\n'))) {
        line++;
        lineStart = i + 1;
      }
    }
    return new int[] {line, offset - lineStart + 1};
  }

  private static int offset(JsonParser parser) {
    return (int) parser.currentTokenLocation().getByteOffset();
  }

  /** Returns {@code text} on one line: control characters written as JSON escapes. */
  static String oneLine(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029') {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  static String describe(@Nullable JsonToken token) {
    if (token == null) {
      return "nothing (the file is empty)";
    }
    return switch (token) {
      case START_ARRAY -> "an array";
      case START_OBJECT -> "an object";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      default -> token.asString() == null ? token.name() : token.asString();
    };
  }

  private static LockfileFormatException problem(String source, boolean bom, String reason, @Nullable JsonLocation at,
      @Nullable Throwable cause) {
    int line = at == null ? 0 : Math.max(at.getLineNr(), 0);
    int column = at == null ? 0 : Math.max(at.getColumnNr(), 0);
    return problem(source, bom, reason, line, column, cause);
  }

  /** The error, its column on the first line counted after the byte order mark, if any. */
  private static LockfileFormatException problem(String source, boolean bom, String reason, int line, int column,
      @Nullable Throwable cause) {
    int col = bom && line == 1 ? Math.max(column - BOM_LENGTH, 1) : column;
    return new LockfileFormatException(source, reason, line, col, cause);
  }
}
