package dev.tierlock;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Reads and writes the JSON body of a lock: an object {@code {holder, hostname, pid, acquiredAt,
 * ttlMs, nonce}} pretty-printed with two spaces and a trailing newline, {@code acquiredAt} as
 * ISO-8601. Reading ignores fields it does not know (peers may add some) and rejects a body that is
 * larger than {@link #MAX_BYTES}, not one JSON object, or missing or mistyping a field. Stateless and
 * thread-safe.
 */
final class LockInfoCodec {

  /** The largest lock body read; a real one is a few hundred bytes. */
  static final int MAX_BYTES = 64 * 1024;

  /** The longest ttl a lock body may declare: a year. */
  static final long MAX_TTL_MS = Duration.ofDays(366).toMillis();

  private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private static final ObjectWriter WRITER = MAPPER.writer(
      new DefaultPrettyPrinter(Separators.createDefaultInstance()
              .withObjectFieldValueSpacing(Separators.Spacing.AFTER))
          .withObjectIndenter(new DefaultIndenter("  ", "\n")));

  private LockInfoCodec() {}

  /** Returns the body that records {@code info}. */
  static byte[] encode(LockInfo info) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("holder", info.holder());
    node.put("hostname", info.hostname());
    node.put("pid", info.pid());
    node.put("acquiredAt", info.acquiredAt().toString());
    node.put("ttlMs", info.ttl().toMillis());
    node.put("nonce", info.nonce());
    try {
      return (WRITER.writeValueAsString(node) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot encode lock record of " + info.holder() + ": " + e.getMessage(), e);
    }
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
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw new LockUnreadableException(lockKey, "the lock body is not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new LockUnreadableException(lockKey, "the lock body cannot be read: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
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
    return new LockInfo(holder, hostname, pid, acquiredAt, Duration.ofMillis(ttlMs), nonce);
  }

  /** Reads a lock body, or returns empty when it is not a valid lock record. */
  static Optional<LockInfo> tryDecode(String lockKey, byte[] body) {
    try {
      return Optional.of(decode(lockKey, body));
    } catch (LockUnreadableException e) {
      return Optional.empty();
    }
  }

  private static String text(String lockKey, JsonNode root, String field) {
    JsonNode value = root.get(field);
    if (value == null || !value.isTextual()) {
      throw new LockUnreadableException(lockKey, "field \"" + field + "\" is missing or not a string", null);
    }
    return value.textValue();
  }

  private static long integral(String lockKey, JsonNode root, String field) {
    JsonNode value = root.get(field);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new LockUnreadableException(lockKey, "field \"" + field + "\" is missing or not an integer", null);
    }
    return value.longValue();
  }
}
