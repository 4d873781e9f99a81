package dev.tierlock;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.ContentReference;
import com.fasterxml.jackson.core.io.JsonEOFException;
import dev.tierlock.LockfileDocument.Member;
import dev.tierlock.LockfileDocument.Span;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Cuts lockfile bytes into a {@link LockfileDocument}: one pass of the strict streaming parser
 * ({@link JsonValue#FACTORY}) over the bytes, the byte offsets of its tokens giving the span of
 * every top-level member. Each member is read into an entry, or kept as foreign when its key is not
 * a valid name or its value does not match the entry schema. Stateless and thread-safe.
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
      List<Raw> raws = new ArrayList<>();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        int keyStart = offset(parser);
        String key = parser.currentName();
        JsonToken start = parser.nextToken();
        int valueStart = offset(parser);
        raws.add(classify(key, keyStart, valueStart, start, parser));
      }
      int close = offset(parser);
      if (parser.nextToken() != null) {
        throw problem(source, bom, "unexpected content after the JSON object", parser.currentTokenLocation(), null);
      }
      return assemble(bytes, open, close, raws);
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

  /** A member as read: where its key and value start, and the entry it holds or why it is foreign. */
  private record Raw(String key, int keyStart, int valueStart, @Nullable ExtensionName name,
      @Nullable LockfileEntry entry, @Nullable String reason) {}

  /** Reads the value the parser is on, to its last token, and classifies the member. */
  private static Raw classify(String key, int keyStart, int valueStart, JsonToken start, JsonParser parser)
      throws IOException {
    ExtensionName name;
    try {
      name = ExtensionName.of(key);
    } catch (InvalidNameException e) {
      JsonValue.read(parser);
      return new Raw(key, keyStart, valueStart, null, null, "the key is not a valid extension name (names match "
          + ExtensionName.PATTERN.pattern() + " and have at most " + ExtensionName.MAX_LENGTH + " characters)");
    }
    if (start != JsonToken.START_OBJECT) {
      JsonValue.read(parser);
      return new Raw(key, keyStart, valueStart, name, null,
          "the entry of " + name + " must be a JSON object, found " + describe(start));
    }
    List<Map.Entry<String, JsonValue>> members = new ArrayList<>(LockfileEntry.KNOWN_FIELDS.size());
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      parser.nextToken();
      members.add(Map.entry(field, JsonValue.read(parser)));
    }
    try {
      return new Raw(key, keyStart, valueStart, name, LockfileCodec.entryFrom(name, members), null);
    } catch (LockfileCodec.EntryProblem p) {
      return new Raw(key, keyStart, valueStart, name, null, oneLine(p.getMessage()));
    }
  }

  /** Cuts the spans: each value ends where the whitespace (and comma) before the next token starts. */
  private static LockfileDocument assemble(byte[] bytes, int open, int close, List<Raw> raws) {
    List<Member> members = new ArrayList<>(raws.size());
    Map<ExtensionName, LockfileEntry> entries = new LinkedHashMap<>();
    List<Lockfile.Foreign> foreign = new ArrayList<>();
    int leadStart = open + 1;
    int end = leadStart;
    for (int i = 0; i < raws.size(); i++) {
      Raw raw = raws.get(i);
      boolean last = i + 1 == raws.size();
      end = skipWhitespaceBack(bytes, last ? close : raws.get(i + 1).keyStart());
      int comma = end - 1;
      if (!last) {
        end = skipWhitespaceBack(bytes, comma);
      }
      members.add(new Member(raw.key(), new Span(bytes, leadStart, raw.keyStart()),
          new Span(bytes, raw.keyStart(), raw.valueStart()), new Span(bytes, raw.valueStart(), end),
          last ? Span.EMPTY : new Span(bytes, end, comma)));
      if (raw.entry() != null && raw.name() != null) {
        entries.put(raw.name(), raw.entry());
      } else {
        String json = new String(bytes, raw.valueStart(), end - raw.valueStart(), StandardCharsets.UTF_8);
        foreign.add(new Lockfile.Foreign(raw.key(), String.valueOf(raw.reason()), json));
      }
      leadStart = comma + 1;
    }
    LockfileLayout layout = LockfileLayout.detect(eol(bytes), hasLineBreak(bytes, open, close), members);
    return new LockfileDocument(new Span(bytes, 0, open + 1), members, new Span(bytes, end, close),
        new Span(bytes, close, bytes.length), layout, entries, foreign);
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
