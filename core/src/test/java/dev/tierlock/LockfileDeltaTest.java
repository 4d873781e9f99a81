package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LockfileDeltaTest {

  private static final ExtensionName A = ExtensionName.of("@s/a");
  private static final ExtensionName B = ExtensionName.of("@s/b");
  private static final ExtensionName C = ExtensionName.of("@s/c");

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, "2026-01-01T00:00:00.000Z").build();
  }

  @Test
  void constructor_nameInBothParts_isRejected() {
    assertThatThrownBy(() -> LockfileDelta.of(Map.of(A, entry("1")), List.of(A)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot build lockfile delta: @s/a is both upserted and removed");
  }

  @Test
  void diff_findsUpsertsAndRemovals() {
    Lockfile before = Lockfile.EMPTY.with(A, entry("1")).with(B, entry("1"));
    Lockfile after = Lockfile.EMPTY.with(B, entry("2")).with(C, entry("1"));

    LockfileDelta delta = LockfileDelta.diff(before, after);

    assertThat(delta.upserts()).containsExactly(Map.entry(B, entry("2")), Map.entry(C, entry("1")));
    assertThat(delta.removals()).containsExactly(A);
    assertThat(delta.names()).containsExactly(B, C, A);
    assertThat(delta.applyTo(before)).isEqualTo(after);
  }

  @Test
  void diff_memberOrderIsNotAChange() {
    LockfileEntry ab = LockfileCodec.decode("{\"@s/a\":{\"version\":\"1\",\"pulledAt\":\"t\",\"x\":{\"p\":1,\"q\":2}}}"
        .getBytes(java.nio.charset.StandardCharsets.UTF_8), "a").entry(A).orElseThrow();
    LockfileEntry ba = LockfileCodec.decode("{\"@s/a\":{\"x\":{\"q\":2,\"p\":1},\"pulledAt\":\"t\",\"version\":\"1\"}}"
        .getBytes(java.nio.charset.StandardCharsets.UTF_8), "b").entry(A).orElseThrow();

    assertThat(LockfileDelta.diff(Lockfile.EMPTY.with(A, ab), Lockfile.EMPTY.with(A, ba)).isEmpty()).isTrue();
  }

  @Test
  void then_laterChangePerNameWins() {
    LockfileDelta first = LockfileDelta.of(Map.of(A, entry("1")), List.of(B));
    LockfileDelta later = LockfileDelta.of(Map.of(B, entry("2")), List.of(A, C));

    LockfileDelta merged = first.then(later);

    assertThat(merged.upserts()).containsExactly(Map.entry(B, entry("2")));
    assertThat(merged.removals()).containsExactly(A, C);
    assertThat(first.then(LockfileDelta.EMPTY)).isEqualTo(first);
    assertThat(LockfileDelta.EMPTY.then(first)).isEqualTo(first);
  }

  @Test
  void applyTo_removesThenUpsertsKeepingPositions() {
    Lockfile base = Lockfile.EMPTY.with(A, entry("1")).with(B, entry("1"));
    LockfileDelta delta = LockfileDelta.of(Map.of(A, entry("2"), C, entry("1")), List.of(B));

    Lockfile out = delta.applyTo(base);

    assertThat(out.names()).containsExactly(A, C);
    assertThat(out.entry(A)).contains(entry("2"));
  }

  @Test
  void without_andRestrictedTo_dropNames() {
    LockfileDelta delta = LockfileDelta.of(Map.of(A, entry("1")), List.of(B));

    assertThat(delta.without(List.of(A))).isEqualTo(LockfileDelta.removal(B));
    assertThat(delta.restrictedTo(List.of(A))).isEqualTo(LockfileDelta.upsert(A, entry("1")));
    assertThat(delta.touches(B)).isTrue();
    assertThat(delta.target(B)).isEmpty();
    assertThat(delta.target(A)).contains(entry("1"));
    assertThat(LockfileDelta.EMPTY.isEmpty()).isTrue();
  }
}
