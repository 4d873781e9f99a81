package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LockfileEntryTest {

  @Test
  void builder_blankRequiredFields_areInvalidInput() {
    assertThatThrownBy(() -> LockfileEntry.builder(" ", "t"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.code()).isEqualTo("invalid_input"))
        .hasMessageStartingWith("Cannot use version \" \": give an exact version");
    assertThatThrownBy(() -> LockfileEntry.builder("1", ""))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.code()).isEqualTo("invalid_input"))
        .hasMessage("Cannot use pulledAt \"\": it is blank");
  }

  @Test
  void builder_notAVersion_isInvalidInput_asTheCommandLineSays() {
    for (String bad : List.of("not a version", "not a version!!", " 1.0", "latest", "1.0\n")) {
      assertThatThrownBy(() -> LockfileEntry.builder(bad, Instant.EPOCH)).as(bad)
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.code()).isEqualTo(InvalidInputException.INVALID_INPUT);
            assertThat(e.input()).isEqualTo(bad);
          })
          .hasMessageContaining("give an exact version (1.2.3, 2026.02.26.1) or a constraint pin");
      assertThatThrownBy(() -> LockfileEntry.builder("1", "t").version(bad)).as(bad)
          .isInstanceOf(InvalidInputException.class);
    }
    for (String good : List.of("1", "2026.02.26.1", "^1.2", ">=1.2 <2", "1.x", "*", "1.0.0-beta.1+build.5", "~1")) {
      assertThat(LockfileEntry.builder(good, "t").build().version()).isEqualTo(good);
    }
  }

  @Test
  void builder_checksums_takeAnyCaseAndThePrefix_andAreStoredBareAndLowercase() {
    String hex = "ab".repeat(32);

    LockfileEntry entry = LockfileEntry.builder("1", "t").checksum("sha256:" + hex.toUpperCase())
        .filesChecksum(" SHA256:" + hex + " ").build();

    assertThat(entry.checksum()).contains(hex);
    assertThat(entry.filesChecksum()).contains(hex);
    assertThat(LockfileEntry.sha256("--checksum", "Sha256:" + hex.toUpperCase())).isEqualTo(hex);
  }

  @Test
  void builder_badDigest_isInvalidInput() {
    LockfileEntry.Builder b = LockfileEntry.builder("1", "t");

    assertThatThrownBy(() -> b.checksum("xyz"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.code()).isEqualTo("invalid_input"))
        .isInstanceOf(TierlockException.class)
        .hasMessage("Cannot use checksum \"xyz\": give a SHA-256 as 64 hex characters, optionally prefixed sha256:");
    assertThatThrownBy(() -> b.checksum("0".repeat(63))).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> b.filesChecksum("g".repeat(64)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot use filesChecksum \"");
    assertThat(b.build().checksum()).isEmpty();
  }

  @Test
  void aLockfilesOwnVersion_isKeptAsStored_evenOneTheBuilderRefuses() {
    String text = "{\n  \"@acme/tool\": {\n    \"version\": \"latest\",\n    \"pulledAt\": \"t\"\n  }\n}\n";

    Lockfile lockfile = Lockfile.parse(text.getBytes(java.nio.charset.StandardCharsets.UTF_8), "test");

    assertThat(lockfile.entry(ExtensionName.of("@acme/tool")).map(LockfileEntry::version)).contains("latest");
    assertThat(lockfile.entry(ExtensionName.of("@acme/tool")).orElseThrow().toBuilder().channel("beta").build().version())
        .isEqualTo("latest");
  }

  @Test
  void builder_unknownFieldNamedLikeKnownOne_isRejected() {
    assertThatThrownBy(() -> LockfileEntry.builder("1", "t").unknownField("files", "[]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot build lockfile entry: \"files\" is a known field, not an unknown one");
    assertThatThrownBy(() -> LockfileEntry.builder("1", "t").unknownField("x", "{oops"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot parse JSON value: ");
  }

  @Test
  void pulledAtInstant_isFormattedLikeToIsoString() {
    LockfileEntry entry = LockfileEntry.builder("1", Instant.parse("2026-03-04T05:06:07Z")).build();

    assertThat(entry.pulledAt()).isEqualTo("2026-03-04T05:06:07.000Z");
  }

  @Test
  void equals_ignoresMemberOrderInsideUnknownFields() {
    LockfileEntry a = LockfileEntry.builder("1", "t").unknownField("x", "{\"a\":1,\"b\":2}").build();
    LockfileEntry b = LockfileEntry.builder("1", "t").unknownField("x", "{\"b\":2,\"a\":1}").build();
    LockfileEntry c = LockfileEntry.builder("1", "t").unknownField("x", "{\"b\":3,\"a\":1}").build();

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo(c);
    assertThat(a.canonicalJson()).isEqualTo("{\"pulledAt\":\"t\",\"version\":\"1\",\"x\":{\"a\":1,\"b\":2}}");
  }

  @Test
  void files_areSortedAndCopied() {
    java.util.ArrayList<String> files = new java.util.ArrayList<>(List.of("b", "a"));
    LockfileEntry entry = LockfileEntry.builder("1", "t").files(files).build();
    files.add("c");

    assertThat(entry.files()).containsExactly("a", "b");
  }

  @Test
  void toBuilder_keepsEveryField() {
    LockfileEntry entry = LockfileEntry.builder("1", "t")
        .files(List.of("f")).include(List.of("i")).checksum("a".repeat(64)).filesChecksum("b".repeat(64))
        .serverUrl("https://r").channel("beta").unknownField("later", "\"x\"").build();

    LockfileEntry copy = entry.toBuilder().build();

    assertThat(copy).isEqualTo(entry);
    assertThat(copy.unknownFields()).isEqualTo(Map.of("later", "\"x\""));
    assertThat(copy.serverUrl()).contains("https://r");
    assertThat(copy.filesChecksum()).contains("b".repeat(64));
    assertThat(entry.toBuilder().withoutUnknownField("later").build().unknownFields()).isEmpty();
  }
}
