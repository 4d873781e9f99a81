package dev.tierlock.install;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.tierlock.ExtensionName;
import dev.tierlock.internal.AtomicFileWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes the {@link ConvergenceState} file. Reading validates everything (schema, names,
 * digests, instants, no unknown member, no duplicate); anything else is {@link InvalidState}, which
 * the converger answers with one full pass. Writing is atomic. Stateless.
 */
final class StateCodec {

  /** The state file's name in the state directory. */
  static final String FILE = "convergence-state.json";

  /** The largest state file read: a record per extension, a few hundred bytes each. */
  static final int MAX_BYTES = 8 * 1024 * 1024;

  private static final JsonFactory FACTORY = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");
  private static final Set<String> TOP = Set.of("schemaVersion", "base", "lockfile", "restoreGeneration", "warned",
      "entries", "left");
  private static final Pattern STAGING_NAME = Pattern.compile("[0-9A-Za-z._-]{1,128}");
  private static final Set<String> LOCKFILE = Set.of("version", "sha256");
  private static final Set<String> RECORD = Set.of("entry", "verified", "filesChecksum", "retry", "unrestorable",
      "skippedChecksum", "keptAt");
  private static final Set<String> RETRY = Set.of("attempts", "next", "reason");
  private static final Set<String> BLOCKED = Set.of("reason", "detail");

  /** The longest header line read; a file whose first line is longer has no header (read whole). */
  static final int MAX_HEADER_BYTES = 64 * 1024;

  /** How many bytes the header is read by at a time. */
  static final int HEADER_CHUNK = 512;

  private static final Set<String> HEADER = Set.of("convergenceHeader", "base", "lockfile", "restoreGeneration",
      "settled", "left");

  /** The bytes of state files read on each thread, for the tests that count what a pass reads. */
  private static final ThreadLocal<long[]> READ = ThreadLocal.withInitial(() -> new long[1]);

  private StateCodec() {}

  /** {@return the bytes of state files this thread has read so far (its header reads and whole reads)} */
  static long bytesRead() {
    return READ.get()[0];
  }

  /** The state file is not a state of this schema. */
  static final class InvalidState extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidState(String message, @Nullable Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Reads the state at {@code file}.
   *
   * @return the state, or empty when there is no file
   * @throws InvalidState if the file is not a valid state
   * @throws IOException if it cannot be read
   */
  static Optional<ConvergenceState> read(Path file) throws IOException, InvalidState {
    byte[] bytes;
    try {
      if (Files.isSymbolicLink(file)) {
        throw new InvalidState(file + " is a link, not a state file", null);
      }
      if (Files.size(file) > MAX_BYTES) {
        throw new InvalidState(file + " has more than " + MAX_BYTES + " bytes", null);
      }
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    READ.get()[0] += bytes.length;
    return Optional.of(decode(bytes));
  }

  /**
   * Reads the header of the state at {@code file}: its first line alone, {@value #HEADER_CHUNK}
   * bytes at a time, whatever the number of records below it. Not validated against the records
   * (a pass that goes on reads the whole file, which is).
   *
   * @return the header, or empty when there is no file or its first line is not a valid header (a
   *     state written before headers were, or not a state: {@link #read} judges it)
   * @throws IOException if the file cannot be read
   */
  static Optional<ConvergenceState.Header> readHeader(Path file) throws IOException {
    if (Files.isSymbolicLink(file)) {
      return Optional.empty();
    }
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ByteBuffer chunk = ByteBuffer.allocate(HEADER_CHUNK);
      while (line.size() < MAX_HEADER_BYTES) {
        chunk.clear();
        int n = channel.read(chunk);
        if (n < 0) {
          return Optional.empty();  // no line break: a state written before headers were
        }
        READ.get()[0] += n;
        for (int i = 0; i < n; i++) {
          if (chunk.get(i) == '\n') {
            return header(line.toByteArray());
          }
          line.write(chunk.get(i));
        }
      }
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private static Optional<ConvergenceState.Header> header(byte[] line) {
    try {
      return Optional.of(decodeHeader(line));
    } catch (InvalidState e) {
      return Optional.empty();
    }
  }

  /** Writes {@code state} to {@code file} atomically. */
  static void write(Path file, ConvergenceState state) throws IOException {
    AtomicFileWriter.write(file, encode(state));
  }

  /**
   * Returns the bytes of {@code state}: its header on one line ({@link #encodeHeader}), then the
   * whole state, pretty-printed.
   */
  static byte[] encode(ConvergenceState state) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(encodeHeader(state.header()));
    out.write('\n');
    out.writeBytes(encodeBody(state));
    return out.toByteArray();
  }

  /** Returns {@code header} as one line of compact JSON (no line break: strings escape theirs). */
  static byte[] encodeHeader(ConvergenceState.Header header) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.writeStartObject();
      g.writeNumberField("convergenceHeader", ConvergenceState.SCHEMA_VERSION);
      g.writeStringField("base", header.base());
      writeLockfile(g, header.lockfileVersion(), header.lockfileSha256());
      g.writeNumberField("restoreGeneration", header.restoreGeneration());
      g.writeBooleanField("settled", header.settled());
      g.writeArrayFieldStart("left");
      for (String name : header.left()) {
        g.writeString(name);
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Writes the lockfile converged to, as {@code "lockfile": {version, sha256}}, when both are known. */
  private static void writeLockfile(JsonGenerator g, @Nullable String version, @Nullable String sha256)
      throws IOException {
    if (version != null && sha256 != null) {
      g.writeObjectFieldStart("lockfile");
      g.writeStringField("version", version);
      g.writeStringField("sha256", sha256);
      g.writeEndObject();
    }
  }

  private static byte[] encodeBody(ConvergenceState state) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeNumberField("schemaVersion", ConvergenceState.SCHEMA_VERSION);
      g.writeStringField("base", state.base());
      writeLockfile(g, state.lockfileVersion(), state.lockfileSha256());
      g.writeNumberField("restoreGeneration", state.restoreGeneration());
      if (state.warned() != null) {
        g.writeStringField("warned", state.warned());
      }
      g.writeObjectFieldStart("entries");
      for (Map.Entry<ExtensionName, ConvergenceState.Record> e : state.records().entrySet()) {
        ConvergenceState.Record r = e.getValue();
        g.writeObjectFieldStart(e.getKey().value());
        g.writeStringField("entry", r.entry());
        if (r.verified() != null) {
          g.writeStringField("verified", r.verified());
        }
        if (r.filesChecksum() != null) {
          g.writeStringField("filesChecksum", r.filesChecksum());
        }
        if (r.skippedChecksum() != null) {
          g.writeStringField("skippedChecksum", r.skippedChecksum());
        }
        if (r.keptAt() != null) {
          g.writeStringField("keptAt", r.keptAt());
        }
        if (r.retry() != null) {
          g.writeObjectFieldStart("retry");
          g.writeNumberField("attempts", r.retry().attempts());
          g.writeStringField("next", r.retry().next().toString());
          g.writeStringField("reason", r.retry().reason());
          g.writeEndObject();
        }
        if (r.unrestorable() != null) {
          g.writeObjectFieldStart("unrestorable");
          g.writeStringField("reason", r.unrestorable().reason().name());
          g.writeStringField("detail", r.unrestorable().detail());
          g.writeEndObject();
        }
        g.writeEndObject();
      }
      g.writeEndObject();
      if (!state.left().isEmpty()) {
        g.writeArrayFieldStart("left");
        for (String name : state.left()) {
          g.writeString(name);
        }
        g.writeEndArray();
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.write('\n');
    return out.toByteArray();
  }

  /**
   * Decodes a state file: a header line and the state below it, which must agree; or, with no
   * header line, a state of schema 1 (written before headers were).
   *
   * @throws InvalidState if the bytes are neither
   */
  static ConvergenceState decode(byte[] bytes) throws InvalidState {
    int eol = 0;
    while (eol < bytes.length && bytes[eol] != '\n') {
      eol++;
    }
    Optional<ConvergenceState.Header> header = eol < bytes.length ? header(Arrays.copyOf(bytes, eol))
        : Optional.empty();
    if (header.isEmpty()) {
      return decodeBody(bytes, 1);
    }
    ConvergenceState state = decodeBody(Arrays.copyOfRange(bytes, eol + 1, bytes.length),
        ConvergenceState.SCHEMA_VERSION);
    if (!state.header().equals(header.get())) {
      throw new InvalidState("the header line does not match the state below it", null);
    }
    return state;
  }

  /** Decodes a header line. */
  static ConvergenceState.Header decodeHeader(byte[] line) throws InvalidState {
    Map<String, @Nullable Object> top = parseObject(line, "the header", HEADER);
    if (integer(top, "convergenceHeader", true) != ConvergenceState.SCHEMA_VERSION) {
      throw new InvalidState("the header is not of schema " + ConvergenceState.SCHEMA_VERSION, null);
    }
    String version = null;
    String sha = null;
    if (top.get("lockfile") != null) {
      Map<String, @Nullable Object> lockfile = object(top.get("lockfile"), "lockfile", LOCKFILE);
      version = text(lockfile, "version", true);
      sha = hex(lockfile, "sha256", true);
    }
    long generation = integer(top, "restoreGeneration", true);
    if (generation < 0) {
      throw new InvalidState("restoreGeneration " + generation + " is negative", null);
    }
    if (!(top.get("settled") instanceof Boolean settled)) {
      throw new InvalidState("settled is not a boolean", null);
    }
    return new ConvergenceState.Header(text(top, "base", true), version, sha, generation, settled,
        left(top.get("left") == null ? List.of() : top.get("left")));
  }

  private static Map<String, @Nullable Object> parseObject(byte[] bytes, String what, Set<String> known)
      throws InvalidState {
    try (JsonParser parser = FACTORY.createParser(bytes)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new InvalidState(what + " is not a JSON object", null);
      }
      Map<String, @Nullable Object> top = object(JsonTree.read(parser), what, known);
      if (parser.nextToken() != null) {
        throw new InvalidState("content follows " + what, null);
      }
      return top;
    } catch (JsonProcessingException e) {
      throw new InvalidState(what + " is not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new InvalidState(what + " cannot be parsed: " + e.getMessage(), e);
    }
  }

  private static java.util.SortedSet<String> left(@Nullable Object value) throws InvalidState {
    if (!(value instanceof List<?> list)) {
      throw new InvalidState("left is not a JSON array", null);
    }
    java.util.SortedSet<String> left = new java.util.TreeSet<>();
    for (Object item : list) {
      if (!(item instanceof String name) || !STAGING_NAME.matcher(name).matches()) {
        throw new InvalidState("left holds \"" + item + "\", which is not a staging directory's name", null);
      }
      left.add(name);
    }
    return left;
  }

  private static ConvergenceState decodeBody(byte[] bytes, int schemaVersion) throws InvalidState {
    Map<String, @Nullable Object> top;
    try (JsonParser parser = FACTORY.createParser(bytes)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new InvalidState("the state is not a JSON object", null);
      }
      top = object(JsonTree.read(parser), "the state", TOP);
      if (parser.nextToken() != null) {
        throw new InvalidState("content follows the state object", null);
      }
    } catch (JsonProcessingException e) {
      throw new InvalidState("the state is not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new InvalidState("the state cannot be parsed: " + e.getMessage(), e);
    }
    long schema = integer(top, "schemaVersion", true);
    if (schema != schemaVersion) {
      throw new InvalidState("schema version " + schema + " is not " + schemaVersion, null);
    }
    String base = text(top, "base", true);
    String version = null;
    String sha = null;
    if (top.get("lockfile") != null) {
      Map<String, @Nullable Object> lockfile = object(top.get("lockfile"), "lockfile", LOCKFILE);
      version = text(lockfile, "version", true);
      sha = hex(lockfile, "sha256", true);
    }
    long generation = integer(top, "restoreGeneration", true);
    if (generation < 0) {
      throw new InvalidState("restoreGeneration " + generation + " is negative", null);
    }
    String warned = hex(top, "warned", false);
    Map<ExtensionName, ConvergenceState.Record> records = new LinkedHashMap<>();
    Map<String, @Nullable Object> entries = object(top.get("entries"), "entries", null);
    for (Map.Entry<String, @Nullable Object> e : entries.entrySet()) {
      if (!ExtensionName.isValid(e.getKey())) {
        throw new InvalidState("entry name \"" + e.getKey() + "\" is not a valid extension name", null);
      }
      records.put(ExtensionName.of(e.getKey()), record(object(e.getValue(), e.getKey(), RECORD)));
    }
    java.util.SortedSet<String> left = top.get("left") == null ? new java.util.TreeSet<>() : left(top.get("left"));
    return new ConvergenceState(base, version, sha, generation, warned, records, left);
  }

  private static ConvergenceState.Record record(Map<String, @Nullable Object> r) throws InvalidState {
    String entry = hex(r, "entry", true);
    String verified = r.get("verified") == null ? null : text(r, "verified", true);
    if (verified != null && !verified.isEmpty() && !HEX64.matcher(verified).matches()) {
      throw new InvalidState("verified \"" + verified + "\" is neither empty nor 64 lowercase hex", null);
    }
    String files = hex(r, "filesChecksum", false);
    ConvergenceState.Retry retry = null;
    if (r.get("retry") != null) {
      Map<String, @Nullable Object> m = object(r.get("retry"), "retry", RETRY);
      long attempts = integer(m, "attempts", true);
      if (attempts < 1 || attempts > 1_000_000) {
        throw new InvalidState("retry attempts " + attempts + " is out of range", null);
      }
      Instant next;
      try {
        next = Instant.parse(text(m, "next", true));
      } catch (DateTimeParseException e) {
        throw new InvalidState("retry next \"" + m.get("next") + "\" is not an ISO-8601 instant", e);
      }
      retry = new ConvergenceState.Retry((int) attempts, next, text(m, "reason", true));
    }
    ConvergenceState.Blocked blocked = null;
    if (r.get("unrestorable") != null) {
      Map<String, @Nullable Object> m = object(r.get("unrestorable"), "unrestorable", BLOCKED);
      ConvergeReport.Unrestorable.Reason reason;
      try {
        reason = ConvergeReport.Unrestorable.Reason.valueOf(text(m, "reason", true));
      } catch (IllegalArgumentException e) {
        throw new InvalidState("unrestorable reason \"" + m.get("reason") + "\" is unknown", e);
      }
      blocked = new ConvergenceState.Blocked(reason, text(m, "detail", true));
    }
    String skipped = hex(r, "skippedChecksum", false);
    String keptAt = r.get("keptAt") == null ? null : text(r, "keptAt", true);
    return new ConvergenceState.Record(entry, verified, files, retry, blocked, skipped, keptAt);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, @Nullable Object> object(@Nullable Object value, String what, @Nullable Set<String> known)
      throws InvalidState {
    if (!(value instanceof Map<?, ?> map)) {
      throw new InvalidState(what + " is not a JSON object", null);
    }
    if (known != null) {
      for (Object key : map.keySet()) {
        if (!known.contains(key)) {
          throw new InvalidState(what + " has an unknown member \"" + key + "\"", null);
        }
      }
    }
    return (Map<String, @Nullable Object>) map;
  }

  private static String text(Map<String, @Nullable Object> m, String field, boolean required) throws InvalidState {
    Object value = m.get(field);
    if (value instanceof String s) {
      return s;
    }
    throw new InvalidState(field + (value == null ? " is missing" : " is not a string"), null);
  }

  private static @Nullable String hex(Map<String, @Nullable Object> m, String field, boolean required)
      throws InvalidState {
    if (!required && m.get(field) == null) {
      return null;
    }
    String value = text(m, field, true);
    if (!HEX64.matcher(value).matches()) {
      throw new InvalidState(field + " \"" + value + "\" is not 64 lowercase hex", null);
    }
    return value;
  }

  private static long integer(Map<String, @Nullable Object> m, String field, boolean required) throws InvalidState {
    if (m.get(field) instanceof Long n) {
      return n;
    }
    throw new InvalidState(field + " is " + (m.get(field) == null ? "missing" : "not an integer"), null);
  }

}
