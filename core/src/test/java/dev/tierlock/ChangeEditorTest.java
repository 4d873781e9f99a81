package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChangeEditorTest {

  private static final ExtensionName A = ExtensionName.of("@s/a");
  private static final ExtensionName B = ExtensionName.of("@s/b");
  private static final ExtensionName C = ExtensionName.of("@s/c");
  private static final LockfileEntry ONE = LockfileEntry.builder("1", "2026-01-01T00:00:00.000Z").build();
  private static final LockfileEntry TWO = LockfileEntry.builder("2", "2026-01-01T00:00:00.000Z").build();

  @TempDir Path dir;

  private ChangeEditor editor(Lockfile start) {
    return new ChangeEditor(start, PulledExtensionsLock.builder(dir).build());
  }

  @Test
  void theDelta_isWhatDiffersFromTheStart_newNamesInTheOrderAdded() {
    ChangeEditor tx = editor(Lockfile.of(Map.of(A, ONE, B, ONE)));

    tx.put(C, ONE);
    tx.put(A, TWO);
    tx.put(B, TWO);
    tx.put(B, ONE);
    assertThat(tx.remove(ExtensionName.of("@s/absent"))).isEmpty();

    assertThat(tx.delta()).isEqualTo(LockfileDelta.of(Map.of(A, TWO, C, ONE), List.of()));
    assertThat(tx.delta().upserts().keySet()).containsExactly(A, C);
    assertThat(tx.lockfile().entry(B)).contains(ONE);
  }

  @Test
  void aRemove_returnsTheEntry_andAPutThenRemoveOfANewNameIsNothing() {
    ChangeEditor tx = editor(Lockfile.of(Map.of(A, ONE)));

    assertThat(tx.remove(A)).contains(ONE);
    tx.put(C, ONE);
    tx.remove(C);

    assertThat(tx.delta()).isEqualTo(LockfileDelta.removal(A));
  }

  @Test
  void aNestedChangeThatThrows_isUndoneWhole() {
    ChangeEditor tx = editor(Lockfile.EMPTY);
    tx.put(A, ONE);
    tx.requireStored(TierPath.of("config/pulled-archives/@s/a/" + "a".repeat(64) + ".tar.gz"), () -> { });

    assertThatThrownBy(() -> tx.run(inner -> {
      inner.put(B, ONE);
      inner.requireStored(TierPath.of("config/pulled-archives/@s/b/" + "b".repeat(64) + ".tar.gz"), () -> { });
      inner.run(deeper -> {
        deeper.remove(A);
        throw new IllegalStateException("deep");
      });
    })).hasMessage("deep");

    assertThat(tx.delta()).isEqualTo(LockfileDelta.upsert(A, ONE));
    assertThat(tx.required()).hasSize(1);
  }

  @Test
  void aClosedContext_refusesEverything() {
    ChangeEditor tx = editor(Lockfile.EMPTY);
    tx.close();

    assertThatThrownBy(() -> tx.entry(A)).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot read entry @s/a: the transaction's change has returned");
    assertThatThrownBy(tx::lockfile).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> tx.put(A, ONE)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> tx.remove(A)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> tx.run(inner -> { })).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> tx.withPulledExtensionsLock(() -> 1)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> tx.requireStored(TierPath.of("config/x"), () -> { }))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void thePulledExtensionsLock_isTakenOnce_andJoinedInside() {
    ChangeEditor tx = editor(Lockfile.EMPTY);

    int value = tx.withPulledExtensionsLock(() -> tx.withPulledExtensionsLock(() -> 7));

    assertThat(value).isEqualTo(7);
    assertThat(PulledExtensionsLock.builder(dir).build().tryAcquire()).hasValueSatisfying(
        PulledExtensionsLock.Held::close);
  }
}
