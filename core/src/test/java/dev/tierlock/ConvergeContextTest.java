package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.internal.TransactionHooks;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConvergeContextTest {

  private static final ExtensionName NAME = ExtensionName.of("@acme/tool");

  @TempDir Path checkout;

  private ConvergeContext open(Lockfile view) {
    PulledExtensionsLock lock = PulledExtensionsLock.builder(checkout).build();
    return new ConvergeContext(view, lock.tryAcquire().orElseThrow());
  }

  @Test
  void everyEdit_isRefused_andTheViewStaysAsGiven() {
    Lockfile view = Lockfile.EMPTY.with(NAME, LockfileEntry.builder("1.0.0", "2026-01-01T00:00:00.000Z").build());
    try (ConvergeContext context = open(view)) {
      assertThatThrownBy(() -> context.put(NAME, LockfileEntry.builder("2.0.0", "2026-01-02T00:00:00.000Z").build()))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("never writes the lockfile");
      assertThatThrownBy(() -> context.remove(NAME)).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> context.run(tx -> tx.remove(NAME))).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> context.deleteAfterPublish(TierPath.LOCKFILE)).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> context.requireStored(TierPath.LOCKFILE, () -> { }))
          .isInstanceOf(IllegalStateException.class);

      assertThat(context.lockfile()).isEqualTo(view);
      assertThat(context.holdsPulledExtensionsLock()).isTrue();
      assertThat(context.withPulledExtensionsLock(() -> "joined")).isEqualTo("joined");
    }
  }

  @Test
  void holdsTheLock_untilClosed_andFinishEndsTheChangeButNotTheLock() {
    PulledExtensionsLock lock = PulledExtensionsLock.builder(checkout).build();
    ConvergeContext context = new ConvergeContext(Lockfile.EMPTY, lock.tryAcquire().orElseThrow());
    PulledExtensionsLock other = PulledExtensionsLock.builder(checkout).build();

    assertThat(CompletableFuture.supplyAsync(() -> other.tryAcquire().map(s -> { s.close(); return true; }))
        .join()).as("held against another thread").isEmpty();
    context.finish();
    assertThat(TransactionHooks.of(context).isRunning()).isFalse();
    assertThatThrownBy(context::lockfile).isInstanceOf(IllegalStateException.class);
    assertThat(CompletableFuture.supplyAsync(() -> other.tryAcquire().map(s -> { s.close(); return true; }))
        .join()).as("still held after finish").isEmpty();
    context.close();
    assertThat(CompletableFuture.supplyAsync(() -> other.tryAcquire().map(s -> { s.close(); return true; }))
        .join()).as("released by close").contains(true);
  }

  @Test
  void anotherThread_isRefused() {
    try (ConvergeContext context = open(Lockfile.EMPTY)) {
      assertThat(CompletableFuture.supplyAsync(() -> {
        try {
          context.lockfile();
          return "read";
        } catch (IllegalStateException e) {
          return "refused";
        }
      }).join()).isEqualTo("refused");
    }
  }
}
