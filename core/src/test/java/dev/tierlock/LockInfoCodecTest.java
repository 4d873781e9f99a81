package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LockInfoCodecTest {

  private static final String KEY = "ns1/.datastore.lock";
  private static final LockInfo INFO = new LockInfo("ada@host-1", "host-1", 4242,
      Instant.parse("2026-03-04T05:06:07.089Z"), Duration.ofSeconds(30), "3f2a9c1e-0d7b-4e5f-9a8b-7c6d5e4f3a2b");

  @Test
  void encode_roundTrips() {
    assertThat(LockInfoCodec.decode(KEY, LockInfoCodec.encode(INFO))).isEqualTo(INFO);
  }

  @Test
  void encode_writesTheUpstreamLayout() {
    String text = new String(LockInfoCodec.encode(INFO), StandardCharsets.UTF_8);

    assertThat(text).isEqualTo("""
        {
          "holder": "ada@host-1",
          "hostname": "host-1",
          "pid": 4242,
          "acquiredAt": "2026-03-04T05:06:07.089Z",
          "ttlMs": 30000,
          "nonce": "3f2a9c1e-0d7b-4e5f-9a8b-7c6d5e4f3a2b"
        }
        """);
  }

  @Test
  void decode_ignoresFieldsItDoesNotKnow() {
    String body = """
        {"holder":"bob@h","hostname":"h","pid":7,"acquiredAt":"2026-01-01T00:00:00.000Z","ttlMs":1500,
         "nonce":"n-1","holderUnknown":false,"skipping":["a"],"context":{"k":"v"}}""";

    LockInfo info = LockInfoCodec.decode(KEY, body.getBytes(StandardCharsets.UTF_8));

    assertThat(info).isEqualTo(new LockInfo("bob@h", "h", 7, Instant.parse("2026-01-01T00:00:00Z"),
        Duration.ofMillis(1500), "n-1"));
  }

  @Test
  void decode_acceptsAnOffsetInstant() {
    String body = "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":1,\"acquiredAt\":\"2026-01-01T02:00:00+02:00\","
        + "\"ttlMs\":1000,\"nonce\":\"n\"}";

    assertThat(LockInfoCodec.decode(KEY, body.getBytes(StandardCharsets.UTF_8)).acquiredAt())
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "''|the lock body is empty",
      "{\"holder\":|the lock body is not valid JSON",
      "[1,2]|the lock body is not a JSON object",
      "null|the lock body is not a JSON object",
      "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":1,\"acquiredAt\":\"2026-01-01T00:00:00Z\",\"ttlMs\":1000}"
          + "|field \"nonce\" is missing or not a string",
      "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":\"1\",\"acquiredAt\":\"2026-01-01T00:00:00Z\",\"ttlMs\":1000,\"nonce\":\"n\"}"
          + "|field \"pid\" is missing or not an integer",
      "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":1,\"acquiredAt\":\"yesterday\",\"ttlMs\":1000,\"nonce\":\"n\"}"
          + "|field \"acquiredAt\" is not an ISO-8601 instant",
      "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":1,\"acquiredAt\":\"2026-01-01T00:00:00Z\",\"ttlMs\":0,\"nonce\":\"n\"}"
          + "|field \"ttlMs\" must be between 1 and",
      "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":1,\"acquiredAt\":\"2026-01-01T00:00:00Z\",\"ttlMs\":1.5,\"nonce\":\"n\"}"
          + "|field \"ttlMs\" is missing or not an integer",
      "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":-1,\"acquiredAt\":\"2026-01-01T00:00:00Z\",\"ttlMs\":10,\"nonce\":\"n\"}"
          + "|field \"pid\" must not be negative",
      "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":1,\"acquiredAt\":\"2026-01-01T00:00:00Z\",\"ttlMs\":10,\"nonce\":\" \"}"
          + "|field \"nonce\" is blank",
      "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":1,\"acquiredAt\":\"2026-01-01T00:00:00Z\",\"ttlMs\":10,\"nonce\":\"n\"} {}"
          + "|the lock body is not valid JSON",
      "{\"nonce\":\"a\",\"nonce\":\"b\"}|the lock body is not valid JSON",
  })
  void decode_corruptBody_isUnreadable(String body, String reason) {
    assertThatThrownBy(() -> LockInfoCodec.decode(KEY, body.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(LockUnreadableException.class)
        .hasMessageStartingWith("Cannot read lock \"" + KEY + "\": " + reason)
        .satisfies(e -> {
          assertThat(((LockUnreadableException) e).code()).isEqualTo("lock_unreadable");
          assertThat(((LockUnreadableException) e).lockKey()).isEqualTo(KEY);
        });
    assertThat(LockInfoCodec.tryDecode(KEY, body.getBytes(StandardCharsets.UTF_8))).isEmpty();
  }

  @Test
  void decode_oversizeBody_isUnreadableWithoutParsing() {
    byte[] body = new byte[LockInfoCodec.MAX_BYTES + 1];

    assertThatThrownBy(() -> LockInfoCodec.decode(KEY, body))
        .isInstanceOf(LockUnreadableException.class)
        .hasMessage("Cannot read lock \"" + KEY + "\": the lock body is " + body.length + " bytes, over the "
            + LockInfoCodec.MAX_BYTES + " byte limit")
        .extracting(e -> ((LockUnreadableException) e).code()).isEqualTo("lock_unreadable");
  }

  @Test
  void decode_keepsTheParseFailureAsCause() {
    assertThatThrownBy(() -> LockInfoCodec.decode(KEY, "{oops".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(LockUnreadableException.class)
        .hasMessageStartingWith("Cannot read lock \"" + KEY + "\": the lock body is not valid JSON")
        .hasCauseInstanceOf(IllegalArgumentException.class)
        .hasRootCauseInstanceOf(com.fasterxml.jackson.core.JsonProcessingException.class);
  }

  @Test
  void encode_withAProcessStart_appendsItAfterTheOriginalSixFields() {
    LockInfo started = INFO.withProcessStart(Instant.parse("2026-03-04T01:02:03.450Z"));

    String text = new String(LockInfoCodec.encode(started), StandardCharsets.UTF_8);

    assertThat(text).isEqualTo("""
        {
          "holder": "ada@host-1",
          "hostname": "host-1",
          "pid": 4242,
          "acquiredAt": "2026-03-04T05:06:07.089Z",
          "ttlMs": 30000,
          "nonce": "3f2a9c1e-0d7b-4e5f-9a8b-7c6d5e4f3a2b",
          "processStartedAt": "2026-03-04T01:02:03.450Z"
        }
        """);
    assertThat(LockInfoCodec.decode(KEY, LockInfoCodec.encode(started))).isEqualTo(started)
        .satisfies(info -> assertThat(info.processStart()).contains(Instant.parse("2026-03-04T01:02:03.450Z")));
    assertThat(started.refreshedAt(Instant.parse("2026-03-04T05:07:00Z")).processStart()).as("kept by heartbeats")
        .isEqualTo(started.processStart());
  }

  @Test
  void decode_theOriginalToolsRecord_hasNoProcessStart() {
    LockInfo info = LockInfoCodec.decode(KEY, LockInfoCodec.encode(INFO));

    assertThat(info.processStart()).isEmpty();
    assertThat(info).isEqualTo(INFO).isNotEqualTo(INFO.withProcessStart(Instant.EPOCH));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"\"yesterday\"", "12345", "null", "\"-9999-01-01T00:00:00Z\""})
  void decode_aProcessStartThatIsNoInstant_readsAsUnknown(String value) {
    String body = "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":1,\"acquiredAt\":\"2026-01-01T00:00:00Z\","
        + "\"ttlMs\":1000,\"nonce\":\"n\",\"processStartedAt\":" + value + "}";

    assertThat(LockInfoCodec.decode(KEY, body.getBytes(StandardCharsets.UTF_8)).processStart()).isEmpty();
  }

  @Test
  void encode_withAProcessNamespace_appendsBootAndPidNamespace_andHeartbeatsKeepThem() {
    LockInfo.ProcessNamespace namespace = new LockInfo.ProcessNamespace("6c7753b3-875b-4719-8421-6b09fe516c68",
        "pid:[4026531836]");
    LockInfo pinned = INFO.withProcessStart(Instant.parse("2026-03-04T01:02:03.450Z")).withProcessNamespace(namespace);

    String text = new String(LockInfoCodec.encode(pinned), StandardCharsets.UTF_8);

    assertThat(text).endsWith("""
          "processStartedAt": "2026-03-04T01:02:03.450Z",
          "bootId": "6c7753b3-875b-4719-8421-6b09fe516c68",
          "pidNamespace": "pid:[4026531836]"
        }
        """);
    assertThat(LockInfoCodec.decode(KEY, LockInfoCodec.encode(pinned))).isEqualTo(pinned)
        .isNotEqualTo(INFO.withProcessStart(Instant.parse("2026-03-04T01:02:03.450Z")));
    assertThat(pinned.refreshedAt(Instant.parse("2026-03-04T05:07:00Z")).processNamespace()).as("kept by heartbeats")
        .contains(namespace);
    assertThat(LockInfoCodec.decode(KEY, LockInfoCodec.encode(INFO)).processNamespace()).as("an older record's")
        .isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"\"b\"|null", "\"b\"|\" \"", "12|\"pid:[1]\"", "\"\"|\"pid:[1]\""})
  void decode_aNamespaceWithAPartMissingOrBlank_readsAsUnknown(String boot, String pids) {
    String body = "{\"holder\":\"a\",\"hostname\":\"h\",\"pid\":1,\"acquiredAt\":\"2026-01-01T00:00:00Z\","
        + "\"ttlMs\":1000,\"nonce\":\"n\",\"bootId\":" + boot + ",\"pidNamespace\":" + pids + "}";

    assertThat(LockInfoCodec.decode(KEY, body.getBytes(StandardCharsets.UTF_8)).processNamespace()).isEmpty();
  }
}
