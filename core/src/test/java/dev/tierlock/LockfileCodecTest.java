package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockfileCodecTest {

  private static final String SHA = "a".repeat(64);

  private static final String SAMPLE = """
      {
        "@acme/web": {
          "version": "2026.02.26.1",
          "pulledAt": "2026-02-26T10:00:00.000Z",
          "files": [
            ".swamp/pulled-extensions/@acme/web/a.ts",
            ".swamp/pulled-extensions/@acme/web/b.ts"
          ],
          "include": [
            "models"
          ],
          "checksum": "%s",
          "filesChecksum": "%s",
          "serverUrl": "https://registry.example",
          "channel": "beta",
          "futureField": {
            "nested": [
              1,
              2.50,
              true,
              null
            ],
            "empty": {},
            "none": []
          }
        },
        "@acme/db/sub": {
          "version": "^1.2",
          "pulledAt": "2026-02-27T10:00:00.000Z"
        }
      }
      """.formatted(SHA, SHA);

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void decodeThenEncode_sampleRoundTripsByteForByte() {
    Lockfile lockfile = LockfileCodec.decode(utf8(SAMPLE), "sample.json");

    assertThat(new String(LockfileCodec.encode(lockfile), StandardCharsets.UTF_8)).isEqualTo(SAMPLE);
  }

  @Test
  void decode_keepsUnknownFieldsAndEntryOrder() {
    Lockfile lockfile = LockfileCodec.decode(utf8(SAMPLE), "sample.json");

    assertThat(lockfile.names()).extracting(ExtensionName::value).containsExactly("@acme/web", "@acme/db/sub");
    LockfileEntry web = lockfile.entry(ExtensionName.of("@acme/web")).orElseThrow();
    assertThat(web.unknownFields())
        .containsExactly(java.util.Map.entry("futureField", "{\"nested\":[1,2.50,true,null],\"empty\":{},\"none\":[]}"));
    assertThat(web.channel()).contains("beta");
    assertThat(web.include()).containsExactly("models");
  }

  @Test
  void encode_writesStringifyFormatWithSortedFilesAndOmittedEmptyOptionals() {
    LockfileEntry entry = LockfileEntry.builder("1.0.0", "2026-01-01T00:00:00.000Z")
        .files(List.of("z", "a", "m"))
        .include(List.of())
        .serverUrl(" ")
        .build();
    Lockfile lockfile = Lockfile.EMPTY.with(ExtensionName.of("@a/b"), entry);

    assertThat(LockfileCodec.encodeText(lockfile)).isEqualTo("""
        {
          "@a/b": {
            "version": "1.0.0",
            "pulledAt": "2026-01-01T00:00:00.000Z",
            "files": [
              "a",
              "m",
              "z"
            ]
          }
        }
        """);
  }

  @Test
  void encode_emptyLockfile_isEmptyObjectAndNewline() {
    assertThat(LockfileCodec.encodeText(Lockfile.EMPTY)).isEqualTo("{}\n");
  }

  @Test
  void encode_escapesStringsLikeJsonStringify() {
    // a version as a lockfile may store it (read, then written back): the builder would refuse it
    LockfileEntry entry = LockfileEntry.parsed("1 \"q\" \\ /", "t\n\t\u0001\u00e9\ud83d\ude00\ud800").build();
    String text = LockfileCodec.encodeText(Lockfile.EMPTY.with(ExtensionName.of("@a/b"), entry));

    assertThat(text).contains("\"version\": \"1 \\\"q\\\" \\\\ /\"")
        .contains("\"pulledAt\": \"t\\n\\t\\u0001\u00e9\ud83d\ude00\\ud800\"");
    assertThat(LockfileCodec.decode(utf8(text), "x")).isEqualTo(Lockfile.EMPTY.with(ExtensionName.of("@a/b"), entry));
  }

  @Test
  void decode_malformedJson_namesFileAndPosition() {
    byte[] bytes = utf8("{\n  \"@a/b\": {\n    \"version\": \"1\",\n    \"pulledAt\": \n  }\n}\n");

    assertThatThrownBy(() -> LockfileCodec.decode(bytes, "/tmp/upstream_extensions.json"))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageStartingWith("Cannot read lockfile /tmp/upstream_extensions.json: ")
        .hasMessageContaining("(at line 5, column 3)")
        .satisfies(e -> {
          LockfileFormatException f = (LockfileFormatException) e;
          assertThat(f.code()).isEqualTo("lockfile_format");
          assertThat(f.position()).contains("5:3");
          assertThat(f.source()).isEqualTo("/tmp/upstream_extensions.json");
        });
  }

  @Test
  void decode_nonObject_isRejectedNamingWhatWasFound() {
    assertThatThrownBy(() -> LockfileCodec.decode(utf8("[1, 2]"), "f.json"))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessage("Cannot read lockfile f.json: the file must contain a JSON object, found an array (at line 1, column 1)")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("lockfile_format");
    assertThatThrownBy(() -> LockfileCodec.decode(utf8("null"), "f.json"))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageContaining("must contain a JSON object, found null");
    assertThatThrownBy(() -> LockfileCodec.decode(new byte[0], "f.json"))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageContaining("found nothing (the file is empty)");
  }

  @Test
  void decode_trailingContent_isRejected() {
    assertThatThrownBy(() -> LockfileCodec.decode(utf8("{}\n{}"), "f.json"))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessage("Cannot read lockfile f.json: unexpected content after the JSON object (at line 2, column 1)")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("lockfile_format");
  }

  @Test
  void decode_duplicateNames_areRejected() {
    String top = "{\n\"@a/b\": {\"version\": \"1\", \"pulledAt\": \"t\"},\n\"@a/b\": {\"version\": \"2\", \"pulledAt\": \"t\"}\n}";
    String inner = "{\"@a/b\": {\"version\": \"1\", \"version\": \"2\", \"pulledAt\": \"t\"}}";

    assertThatThrownBy(() -> LockfileCodec.decode(utf8(top), "f.json"))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageContaining("Duplicate")
        .hasMessageContaining("@a/b")
        .hasMessageContaining("(at line 3,")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("lockfile_format");
    assertThatThrownBy(() -> LockfileCodec.decode(utf8(inner), "f.json"))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageContaining("Duplicate")
        .hasMessageContaining("version");
  }

  /** Decodes {@code text} and returns its only member, which must be foreign, checking it survives. */
  private static Lockfile.Foreign onlyForeign(String text) {
    Lockfile lockfile = LockfileCodec.decode(utf8(text), "f.json");

    assertThat(lockfile.entries()).isEmpty();
    assertThat(lockfile.foreign()).hasSize(1);
    assertThat(LockfileCodec.encode(lockfile)).isEqualTo(utf8(text));
    return lockfile.foreign().get(0);
  }

  @Test
  void decode_invalidName_isKeptAsForeign() {
    String text = "{\n  \"@Acme/web\": {\"version\": \"1\", \"pulledAt\": \"t\"}\n}";

    Lockfile.Foreign foreign = onlyForeign(text);

    assertThat(foreign.name()).isEqualTo("@Acme/web");
    assertThat(foreign.reason()).startsWith("the key is not a valid extension name (names match ");
    assertThat(foreign.json()).isEqualTo("{\"version\": \"1\", \"pulledAt\": \"t\"}");
  }

  @Test
  void decode_entryThatIsNotAnObject_isForeignAndRefusesWrites() {
    Lockfile lockfile = LockfileCodec.decode(utf8("{\"@a/b\": \"1.0\"}"), "f.json");

    assertThat(lockfile.foreign())
        .containsExactly(new Lockfile.Foreign("@a/b", "the entry of @a/b must be a JSON object, found a string", "\"1.0\""));
    assertThat(lockfile.contains(ExtensionName.of("@a/b"))).isFalse();
    assertThatThrownBy(() -> lockfile.with(ExtensionName.of("@a/b"), LockfileEntry.builder("1", "t").build()))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessage("Cannot put lockfile entry @a/b: the lockfile holds it as a foreign member (the entry of @a/b must"
            + " be a JSON object, found a string), kept byte for byte; only a hand edit of the file can change it")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("foreign_entry");
  }

  @Test
  void decode_entryWithoutVersionOrPulledAt_isForeign() {
    assertThat(onlyForeign("{\"@a/b\": {\"pulledAt\": \"t\"}}").reason())
        .isEqualTo("the entry of @a/b has no \"version\"");
    assertThat(onlyForeign("{\"@a/b\": {\"version\": \"1\"}}").reason()).isEqualTo("the entry of @a/b has no \"pulledAt\"");
    assertThat(onlyForeign("{\"@a/b\": {\"version\": 1, \"pulledAt\": \"t\"}}").reason())
        .isEqualTo("field \"version\" of @a/b must be a non-empty string");
  }

  @Test
  void decode_badChecksum_isForeignNamingTheField() {
    String text = "{\"@a/b\": {\"version\": \"1\", \"pulledAt\": \"t\",\n \"checksum\": \"" + "A".repeat(64) + "\"}}";

    Lockfile.Foreign foreign = onlyForeign(text);

    assertThat(foreign.reason())
        .startsWith("field \"checksum\" of @a/b is invalid: checksum must be exactly 64 lowercase hex digits");
    assertThat(onlyForeign("{\"@a/b\": {\"version\": \"1\", \"pulledAt\": \"t\", \"filesChecksum\": \"abc\"}}").reason())
        .contains("filesChecksum must be exactly 64 lowercase hex digits");
  }

  @Test
  void decode_wrongTypes_areForeign() {
    assertThat(onlyForeign("{\"@a/b\": {\"version\": \"1\", \"pulledAt\": \"t\", \"files\": [\"a\", 2]}}").reason())
        .isEqualTo("field \"files\" of @a/b must be a string");
    assertThat(onlyForeign("{\"@a/b\": {\"version\": \"1\", \"pulledAt\": \"t\", \"channel\": false}}").reason())
        .isEqualTo("field \"channel\" of @a/b must be a string");
  }

  @Test
  void decode_nullOptionals_areAbsent() {
    String text = "{\"@a/b\": {\"version\": \"1\", \"pulledAt\": \"t\", \"checksum\": null, \"files\": null}}";

    LockfileEntry entry = LockfileCodec.decode(utf8(text), "f.json").entry(ExtensionName.of("@a/b")).orElseThrow();

    assertThat(entry.checksum()).isEmpty();
    assertThat(entry.files()).isEmpty();
  }

  @Test
  void decode_oversizeInput_isRejectedWithoutParsing() {
    byte[] big = new byte[LockfileCodec.MAX_BYTES + 1];

    assertThatThrownBy(() -> LockfileCodec.decode(big, "big.json"))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessage("Cannot read lockfile big.json: the file has " + big.length + " bytes, more than the limit of "
            + LockfileCodec.MAX_BYTES)
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("lockfile_format");
  }
}
