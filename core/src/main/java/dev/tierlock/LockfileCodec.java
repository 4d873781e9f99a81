package dev.tierlock;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and writes the shared lockfile format: one JSON object mapping extension names to entries,
 * written as {@code JSON.stringify(lockfile, null, 2)} followed by a newline. Entry order and member
 * order are kept, {@code files} is sorted, empty optionals are omitted and fields this version does
 * not know are written back as read. A file written by {@link #encode} decodes and encodes back to
 * the same bytes. Stateless and thread-safe.
 */
public final class LockfileCodec {

  /** The largest lockfile read, in bytes (16 MiB). */
  public static final int MAX_BYTES = 16 * 1024 * 1024;

  private LockfileCodec() {}

  /**
   * Decodes a lockfile.
   *
   * @param bytes the file's bytes, UTF-8
   * @param source the file or object they came from, named in errors
   * @return the lockfile, entries in file order
   * @throws LockfileFormatException if the bytes are not a valid lockfile; the message names {@code
   *     source} and the line and column of the problem
   */
  public static Lockfile decode(byte[] bytes, String source) {
    if (bytes.length > MAX_BYTES) {
      throw new LockfileFormatException(source, "the file has " + bytes.length + " bytes, more than the limit of "
          + MAX_BYTES, 0, 0, null);
    }
    try (JsonParser parser = JsonValue.FACTORY.createParser(bytes)) {
      JsonToken first = parser.nextToken();
      if (first != JsonToken.START_OBJECT) {
        throw problem(source, "the file must contain a JSON object, found " + describe(first), parser.currentTokenLocation());
      }
      Map<ExtensionName, LockfileEntry> entries = new LinkedHashMap<>();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String text = parser.currentName();
        JsonLocation nameAt = parser.currentTokenLocation();
        if (!ExtensionName.isValid(text)) {
          throw problem(source, new InvalidNameException(text).getMessage(), nameAt);
        }
        ExtensionName name = ExtensionName.of(text);
        JsonToken start = parser.nextToken();
        if (start != JsonToken.START_OBJECT) {
          throw problem(source, "the entry of " + name + " must be a JSON object, found " + describe(start),
              parser.currentTokenLocation());
        }
        entries.put(name, readEntry(parser, name, source, parser.currentTokenLocation()));
      }
      JsonToken trailing = parser.nextToken();
      if (trailing != null) {
        throw problem(source, "unexpected content after the JSON object", parser.currentTokenLocation());
      }
      return Lockfile.of(entries);
    } catch (JsonProcessingException e) {
      throw problem(source, e.getOriginalMessage(), e.getLocation(), e);
    } catch (IOException e) {
      throw new LockfileFormatException(source, "the bytes cannot be read: " + e.getMessage(), 0, 0, e);
    }
  }

  /** Encodes a lockfile: 2-space indent, trailing newline, entries in order, UTF-8. */
  public static byte[] encode(Lockfile lockfile) {
    return encodeText(lockfile).getBytes(StandardCharsets.UTF_8);
  }

  /** Encodes a lockfile as text, as {@link #encode} does. */
  public static String encodeText(Lockfile lockfile) {
    StringBuilder out = new StringBuilder();
    toJson(lockfile).writePretty(out, 0);
    return out.append('\n').toString();
  }

  static JsonValue.Obj toJson(Lockfile lockfile) {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    lockfile.entries().forEach((name, entry) -> members.put(name.value(), entry.toJson()));
    return new JsonValue.Obj(members);
  }

  /**
   * Converts a JSON value to an entry.
   *
   * @throws EntryProblem naming the field at fault
   */
  static LockfileEntry entryFrom(ExtensionName name, JsonValue value) throws EntryProblem {
    if (!(value instanceof JsonValue.Obj obj)) {
      throw new EntryProblem("", "the entry of " + name + " must be a JSON object");
    }
    Map<String, JsonValue> m = obj.members();
    String version = requiredString(name, m, "version");
    String pulledAt = requiredString(name, m, "pulledAt");
    LockfileEntry.Builder b;
    try {
      b = LockfileEntry.builder(version, pulledAt);
    } catch (IllegalArgumentException e) {
      throw new EntryProblem("version", e.getMessage());
    }
    for (Map.Entry<String, JsonValue> member : m.entrySet()) {
      String field = member.getKey();
      JsonValue v = member.getValue();
      try {
        switch (field) {
          case "version", "pulledAt" -> { }
          case "files" -> b.files(optionalStrings(name, field, v));
          case "include" -> b.include(optionalStrings(name, field, v));
          case "checksum", "filesChecksum", "serverUrl", "channel" -> {
            if (v != JsonValue.Literal.NULL) {
              String s = string(name, field, v);
              switch (field) {
                case "checksum" -> b.checksum(s);
                case "filesChecksum" -> b.filesChecksum(s);
                case "serverUrl" -> b.serverUrl(s);
                default -> b.channel(s);
              }
            }
          }
          default -> b.unknownField(field, v);
        }
      } catch (IllegalArgumentException e) {
        throw new EntryProblem(field, "field \"" + field + "\" of " + name + " is invalid: "
            + e.getMessage().replaceFirst("^Cannot build lockfile entry: ", ""));
      }
    }
    return b.build();
  }

  private static LockfileEntry readEntry(JsonParser parser, ExtensionName name, String source, JsonLocation entryAt)
      throws IOException {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    Map<String, JsonLocation> at = new HashMap<>();
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      parser.nextToken();
      at.put(field, parser.currentTokenLocation());
      members.put(field, JsonValue.read(parser));
    }
    try {
      return entryFrom(name, new JsonValue.Obj(members));
    } catch (EntryProblem p) {
      throw problem(source, p.getMessage(), at.getOrDefault(p.field, entryAt));
    }
  }

  private static String requiredString(ExtensionName name, Map<String, JsonValue> m, String field) throws EntryProblem {
    JsonValue v = m.get(field);
    if (v == null || v == JsonValue.Literal.NULL) {
      throw new EntryProblem("", "the entry of " + name + " has no \"" + field + "\"");
    }
    if (!(v instanceof JsonValue.Str s) || s.value().isBlank()) {
      throw new EntryProblem(field, "field \"" + field + "\" of " + name + " must be a non-empty string");
    }
    return s.value();
  }

  private static String string(ExtensionName name, String field, JsonValue v) throws EntryProblem {
    if (v instanceof JsonValue.Str s) {
      return s.value();
    }
    throw new EntryProblem(field, "field \"" + field + "\" of " + name + " must be a string");
  }

  private static List<String> optionalStrings(ExtensionName name, String field, JsonValue v) throws EntryProblem {
    if (v == JsonValue.Literal.NULL) {
      return List.of();
    }
    if (!(v instanceof JsonValue.Arr arr)) {
      throw new EntryProblem(field, "field \"" + field + "\" of " + name + " must be an array of strings");
    }
    List<String> out = new ArrayList<>();
    for (JsonValue item : arr.items()) {
      out.add(string(name, field, item));
    }
    return out;
  }

  private static String describe(JsonToken token) {
    if (token == null) {
      return "nothing (the file is empty)";
    }
    return switch (token) {
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      default -> token.asString() == null ? token.name() : token.asString();
    };
  }

  private static LockfileFormatException problem(String source, String reason, JsonLocation at) {
    return problem(source, reason, at, null);
  }

  private static LockfileFormatException problem(String source, String reason, JsonLocation at, Throwable cause) {
    int line = at == null ? 0 : Math.max(at.getLineNr(), 0);
    int column = at == null ? 0 : Math.max(at.getColumnNr(), 0);
    return new LockfileFormatException(source, reason, line, column, cause);
  }

  /** A field of an entry is wrong; {@code field} is empty when the entry as a whole is. */
  static final class EntryProblem extends Exception {
    private static final long serialVersionUID = 1L;
    final String field;

    EntryProblem(String field, String message) {
      super(message, null, false, false);
      this.field = field;
    }
  }
}
