package dev.tierlock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads and writes the JSON body of a lock: an object {@code {holder, hostname, pid, acquiredAt,
 * ttlMs, nonce}} pretty-printed with two spaces and a trailing newline, {@code acquiredAt} as
 * ISO-8601, then {@code processStartedAt} (ISO-8601) when the record knows its process's start
 * time, and {@code bootId} and {@code pidNamespace} (strings) when it knows the boot and pid
 * namespace of its pid. The six fields keep the original tool's names, types and order, so it reads our records
 * (it needs a string holder, a numeric pid, a string acquiredAt, a numeric ttlMs and the nonce, and
 * ignores a field it does not know); reading ours needs none of the optional field. Reading ignores
 * fields it does not know (peers may add some), reads a {@code processStartedAt} that is not an
 * ISO-8601 instant as absent (the start is then unknown, the safe reading), reads the namespace as
 * absent unless both of its fields are non-blank strings (absent is the safe reading: no reader
 * then judges the process gone), and rejects a body that
 * is larger than {@link #MAX_BYTES}, not one JSON object, or missing or mistyping a required field.
 * Stateless and thread-safe.
 */
final class LockInfoCodec {

  /** The largest lock body read; a real one is a few hundred bytes. */
  static final int MAX_BYTES = 64 * 1024;

  /** The longest ttl a lock body may declare: a year. */
  static final long MAX_TTL_MS = Duration.ofDays(366).toMillis();

  private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

  /** The optional field of the holder's process start time. */
  static final String PROCESS_START = "processStartedAt";

  /** The optional field of the holder's kernel boot id. */
  static final String BOOT_ID = "bootId";

  /** The optional field of the holder's pid namespace. */
  static final String PID_NAMESPACE = "pidNamespace";

  private LockInfoCodec() {}

  /** Returns the body that records {@code info}. */
  static byte[] encode(LockInfo info) {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("holder", new JsonValue.Str(info.holder()));
    members.put("hostname", new JsonValue.Str(info.hostname()));
    members.put("pid", new JsonValue.Num(Long.toString(info.pid())));
    members.put("acquiredAt", new JsonValue.Str(info.acquiredAt().toString()));
    members.put("ttlMs", new JsonValue.Num(Long.toString(info.ttl().toMillis())));
    members.put("nonce", new JsonValue.Str(info.nonce()));
    info.processStart().ifPresent(start -> members.put(PROCESS_START, new JsonValue.Str(start.toString())));
    info.processNamespace().ifPresent(namespace -> {
      members.put(BOOT_ID, new JsonValue.Str(namespace.bootId()));
      members.put(PID_NAMESPACE, new JsonValue.Str(namespace.pidNamespace()));
    });
    StringBuilder out = new StringBuilder();
    new JsonValue.Obj(members).writePretty(out, 0);
    return out.append('\n').toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads a lock body.
   *
   * @param lockKey the lock's key or path, for the message
   * @throws LockUnreadableException if the body is not a valid lock record
   */
  static LockInfo decode(String lockKey, byte[] body) {
    if (body.length == 0) {
      throw new LockUnreadableException(lockKey, "the lock body is empty", null);
    }
    if (body.length > MAX_BYTES) {
      throw new LockUnreadableException(lockKey, "the lock body is " + body.length + " bytes, over the " + MAX_BYTES + " byte limit", null);
    }
    JsonValue parsed;
    try {
      parsed = JsonValue.parse(StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(body)).toString());
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new LockUnreadableException(lockKey, "the lock body is not UTF-8 text", e);
    } catch (IllegalArgumentException e) {
      throw new LockUnreadableException(lockKey, "the lock body is not valid JSON: "
          + e.getMessage().replaceFirst("^Cannot parse JSON value: ", ""), e);
    }
    if (!(parsed instanceof JsonValue.Obj root)) {
      throw new LockUnreadableException(lockKey, "the lock body is not a JSON object", null);
    }
    String holder = text(lockKey, root, "holder");
    String hostname = text(lockKey, root, "hostname");
    long pid = integral(lockKey, root, "pid");
    String acquiredText = text(lockKey, root, "acquiredAt");
    long ttlMs = integral(lockKey, root, "ttlMs");
    String nonce = text(lockKey, root, "nonce");
    Instant acquiredAt;
    try {
      acquiredAt = Instant.parse(acquiredText);
    } catch (DateTimeParseException e) {
      throw new LockUnreadableException(lockKey, "field \"acquiredAt\" is not an ISO-8601 instant: " + acquiredText, e);
    }
    if (acquiredAt.isBefore(Instant.EPOCH) || acquiredAt.isAfter(LATEST)) {
      throw new LockUnreadableException(lockKey, "field \"acquiredAt\" is out of range: " + acquiredText, null);
    }
    if (ttlMs <= 0 || ttlMs > MAX_TTL_MS) {
      throw new LockUnreadableException(lockKey, "field \"ttlMs\" must be between 1 and " + MAX_TTL_MS + ", got " + ttlMs, null);
    }
    if (pid < 0) {
      throw new LockUnreadableException(lockKey, "field \"pid\" must not be negative, got " + pid, null);
    }
    if (nonce.isBlank()) {
      throw new LockUnreadableException(lockKey, "field \"nonce\" is blank", null);
    }
    LockInfo info = new LockInfo(holder, hostname, pid, acquiredAt, Duration.ofMillis(ttlMs), nonce);
    LockInfo started = processStart(root).map(info::withProcessStart).orElse(info);
    return processNamespace(root).map(started::withProcessNamespace).orElse(started);
  }

  /** Returns the record's boot and pid namespace, or empty unless both fields are non-blank strings. */
  private static Optional<LockInfo.ProcessNamespace> processNamespace(JsonValue.Obj root) {
    if (root.members().get(BOOT_ID) instanceof JsonValue.Str boot && !boot.value().isBlank()
        && root.members().get(PID_NAMESPACE) instanceof JsonValue.Str pids && !pids.value().isBlank()) {
      return Optional.of(new LockInfo.ProcessNamespace(boot.value(), pids.value()));
    }
    return Optional.empty();
  }

  /** Returns the record's process start time, or empty when it is absent or not an instant in range. */
  private static Optional<Instant> processStart(JsonValue.Obj root) {
    if (!(root.members().get(PROCESS_START) instanceof JsonValue.Str value)) {
      return Optional.empty();
    }
    try {
      Instant start = Instant.parse(value.value());
      return start.isBefore(Instant.EPOCH) || start.isAfter(LATEST) ? Optional.empty() : Optional.of(start);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** Reads a lock body, or returns empty when it is not a valid lock record. */
  static Optional<LockInfo> tryDecode(String lockKey, byte[] body) {
    try {
      return Optional.of(decode(lockKey, body));
    } catch (LockUnreadableException e) {
      return Optional.empty();
    }
  }

  private static String text(String lockKey, JsonValue.Obj root, String field) {
    if (!(root.members().get(field) instanceof JsonValue.Str value)) {
      throw new LockUnreadableException(lockKey, "field \"" + field + "\" is missing or not a string", null);
    }
    return value.value();
  }

  private static long integral(String lockKey, JsonValue.Obj root, String field) {
    if (root.members().get(field) instanceof JsonValue.Num value && value.literal().matches("-?[0-9]{1,19}")) {
      try {
        return Long.parseLong(value.literal());
      } catch (NumberFormatException e) {
        // over the range of a long: reported below
      }
    }
    throw new LockUnreadableException(lockKey, "field \"" + field + "\" is missing or not an integer", null);
  }
}
