package dev.tierlock;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads and writes the shared lockfile format: one JSON object mapping extension names to entries,
 * written as {@code JSON.stringify(lockfile, null, 2)} followed by a newline. {@link #decode} and
 * {@link #encode} are thin wrappers over {@link Lockfile#parse} and {@link Lockfile#bytes()}, which
 * keep the bytes of a parsed file and rewrite only the members a change touches (see {@link
 * Lockfile}). Stateless and thread-safe.
 */
final class LockfileCodec {

  /** The largest lockfile read, in bytes ({@link Lockfile#MAX_BYTES}). */
  static final int MAX_BYTES = Lockfile.MAX_BYTES;

  private static final byte[] VERSION = fieldStart("version");
  private static final byte[] PULLED_AT = fieldStart("pulledAt");
  private static final byte[] FILES = fieldStart("files");
  private static final byte[] INCLUDE = fieldStart("include");
  private static final byte[] CHECKSUM = fieldStart("checksum");
  private static final byte[] FILES_CHECKSUM = fieldStart("filesChecksum");
  private static final byte[] SERVER_URL = fieldStart("serverUrl");
  private static final byte[] CHANNEL = fieldStart("channel");

  private LockfileCodec() {}

  private static byte[] fieldStart(String name) {
    return ("\"" + name + "\": ").getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Decodes a lockfile; a thin wrapper over {@link Lockfile#parse}.
   *
   * @param bytes the file's bytes, UTF-8
   * @param source the file or object they came from, named in errors
   * @return the lockfile, entries in file order, its bytes kept
   * @throws LockfileFormatException if the bytes are not a lockfile (see {@link Lockfile#parse}); the
   *     message names {@code source} and the line and column of the problem
   */
  static Lockfile decode(byte[] bytes, String source) {
    return Lockfile.parse(bytes, source);
  }

  /**
   * Encodes a lockfile; a thin wrapper over {@link Lockfile#bytes()}: the bytes it was parsed from
   * with only its changed members rewritten, or, for a lockfile built with {@link Lockfile#of}, 2-space
   * indent, trailing newline, entries in order, UTF-8.
   */
  static byte[] encode(Lockfile lockfile) {
    return lockfile.bytes();
  }

  /** Encodes a lockfile as text, as {@link #encode} does but without a byte order mark ({@link Lockfile#text()}). */
  static String encodeText(Lockfile lockfile) {
    return lockfile.text();
  }

  /**
   * Writes {@code entry} as {@code JSON.stringify(entry.toJson(), null, unit)} writes it, nested
   * under the line {@code indentation} starts from: known fields in {@link LockfileEntry#KNOWN_FIELDS}
   * order, then unknown ones, straight from the entry's fields.
   */
  static void writePretty(LockfileEntry entry, JsonOutput out, JsonOutput.Indentation indentation) {
    out.write('{');
    indentation.line(out, 1);
    out.write(VERSION).quote(entry.version()).write(',');
    indentation.line(out, 1);
    out.write(PULLED_AT).quote(entry.pulledAt());
    strings(out, indentation, FILES, entry.files());
    strings(out, indentation, INCLUDE, entry.include());
    string(out, indentation, CHECKSUM, entry.checksum());
    string(out, indentation, FILES_CHECKSUM, entry.filesChecksum());
    string(out, indentation, SERVER_URL, entry.serverUrl());
    string(out, indentation, CHANNEL, entry.channel());
    for (Map.Entry<String, JsonValue> field : entry.unknownValues().entrySet()) {
      out.write(',');
      indentation.line(out, 1);
      out.quote(field.getKey()).write(':').write(' ').pretty(field.getValue(), indentation, 1);
    }
    indentation.line(out, 0);
    out.write('}');
  }

  private static void strings(JsonOutput out, JsonOutput.Indentation indentation, byte[] field, List<String> values) {
    if (values.isEmpty()) {
      return;
    }
    out.write(',');
    indentation.line(out, 1);
    out.write(field).write('[');
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        out.write(',');
      }
      indentation.line(out, 2);
      out.quote(values.get(i));
    }
    indentation.line(out, 1);
    out.write(']');
  }

  private static void string(JsonOutput out, JsonOutput.Indentation indentation, byte[] field, Optional<String> value) {
    if (value.isPresent()) {
      out.write(',');
      indentation.line(out, 1);
      out.write(field).quote(value.get());
    }
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
    return entryFrom(name, obj.members().entrySet());
  }

  /**
   * Converts the members of a JSON object, in document order and without duplicate names, to an
   * entry.
   *
   * @throws EntryProblem naming the field at fault
   */
  static LockfileEntry entryFrom(ExtensionName name, Collection<Map.Entry<String, JsonValue>> members)
      throws EntryProblem {
    String version = requiredString(name, members, "version");
    String pulledAt = requiredString(name, members, "pulledAt");
    LockfileEntry.Builder b;
    try {
      b = LockfileEntry.parsed(version, pulledAt);
    } catch (IllegalArgumentException e) {
      throw new EntryProblem("version", e.getMessage());
    }
    for (Map.Entry<String, JsonValue> member : members) {
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
                case "checksum", "filesChecksum" -> b.storedDigest(field, s);
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

  private static String requiredString(ExtensionName name, Collection<Map.Entry<String, JsonValue>> members,
      String field) throws EntryProblem {
    JsonValue v = null;
    for (Map.Entry<String, JsonValue> member : members) {
      if (member.getKey().equals(field)) {
        v = member.getValue();
        break;
      }
    }
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
    String[] out = new String[arr.items().size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = string(name, field, arr.items().get(i));
    }
    return java.util.Arrays.asList(out);
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
