package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LockfileEntryTest {

  @Test
  void builder_blankRequiredFields_areRejected() {
    assertThatThrownBy(() -> LockfileEntry.builder(" ", "t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot build lockfile entry: version is blank");
    assertThatThrownBy(() -> LockfileEntry.builder("1", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot build lockfile entry: pulledAt is blank");
  }

  @Test
  void builder_badDigest_isRejected() {
    LockfileEntry.Builder b = LockfileEntry.builder("1", "t");

    assertThatThrownBy(() -> b.checksum("0".repeat(63)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot build lockfile entry: checksum must be exactly 64 lowercase hex digits (a SHA-256), got \""
            + "0".repeat(63) + "\"");
    assertThatThrownBy(() -> b.filesChecksum("g".repeat(64)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("filesChecksum must be exactly 64 lowercase hex digits");
    assertThat(b.build().checksum()).isEmpty();
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
