package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class LockfileTest {

  private static final ExtensionName A = ExtensionName.of("@s/a");
  private static final ExtensionName B = ExtensionName.of("@s/b");
  private static final ExtensionName C = ExtensionName.of("@s/c");

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, "2026-01-01T00:00:00.000Z").build();
  }

  @Test
  void with_keepsPositionOfExistingNameAndAppendsNewOnes() {
    Lockfile l = Lockfile.EMPTY.with(A, entry("1")).with(B, entry("1")).with(A, entry("2")).with(C, entry("1"));

    assertThat(l.names()).containsExactly(A, B, C);
    assertThat(l.entry(A)).contains(entry("2"));
  }

  @Test
  void without_removesAndIgnoresMissingNames() {
    Lockfile l = Lockfile.EMPTY.with(A, entry("1")).with(B, entry("1"));

    assertThat(l.without(A).names()).containsExactly(B);
    assertThat(l.without(C)).isSameAs(l);
    assertThat(l.names()).containsExactly(A, B);
  }

  @Test
  void equals_ignoresEntryOrder() {
    Lockfile ab = Lockfile.EMPTY.with(A, entry("1")).with(B, entry("2"));
    Lockfile ba = Lockfile.EMPTY.with(B, entry("2")).with(A, entry("1"));

    assertThat(ab).isEqualTo(ba).hasSameHashCodeAs(ba).isNotEqualTo(ab.with(B, entry("3")));
  }

  @Test
  void entries_areUnmodifiable() {
    Lockfile l = Lockfile.EMPTY.with(A, entry("1"));

    assertThatThrownBy(() -> l.entries().remove(A)).isInstanceOf(UnsupportedOperationException.class);
    assertThat(l.restrictedTo(Set.of(B))).isEqualTo(Lockfile.EMPTY);
    assertThat(l.restrictedTo(Set.of(A, B))).isEqualTo(l);
  }

  @Test
  void equals_ignoresFormattingAndForeignMembers() {
    Lockfile pretty = Lockfile.parse("{\n  \"@s/a\": {\n    \"version\": \"1\",\n    \"pulledAt\": \"2026-01-01T00:00:00.000Z\"\n  }\n}\n"
        .getBytes(java.nio.charset.StandardCharsets.UTF_8), "pretty");
    Lockfile compact = Lockfile.parse(("{\"lockfileVersion\":2,\"@s/a\":{\"pulledAt\":\"2026-01-01T00:00:00.000Z\","
        + "\"version\":\"1\"}}").getBytes(java.nio.charset.StandardCharsets.UTF_8), "compact");

    assertThat(pretty).isEqualTo(compact).hasSameHashCodeAs(compact).isEqualTo(Lockfile.EMPTY.with(A, entry("1")));
    assertThat(compact.foreign()).hasSize(1);
    assertThat(compact.size()).isEqualTo(1);
  }

  @Test
  void restrictedTo_isAFreshLockfileWithoutForeignMembers() {
    Lockfile parsed = Lockfile.parse(("{\"x\": 1, \"@s/a\": {\"version\": \"1\", \"pulledAt\": \"2026-01-01T00:00:00.000Z\"},"
        + " \"@s/b\": {\"version\": \"1\", \"pulledAt\": \"2026-01-01T00:00:00.000Z\"}}").getBytes(java.nio.charset.StandardCharsets.UTF_8),
        "f.json");

    Lockfile kept = parsed.restrictedTo(Set.of(A));

    assertThat(kept.foreign()).isEmpty();
    assertThat(kept.bytes()).isEqualTo(Lockfile.of(java.util.Map.of(A, entry("1"))).bytes());
  }
}
