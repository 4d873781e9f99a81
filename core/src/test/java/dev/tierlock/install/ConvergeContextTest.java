package dev.tierlock.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.TierPath;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ConvergeContextTest {

  private static final ExtensionName NAME = ExtensionName.of("@acme/tool");

  @Test
  void everyEdit_isRefused_andTheViewStaysAsGiven() {
    Lockfile view = Lockfile.EMPTY.with(NAME, LockfileEntry.builder("1.0.0", "2026-01-01T00:00:00.000Z").build());
    try (ConvergeContext context = new ConvergeContext(view)) {
      assertThatThrownBy(() -> context.put(NAME, LockfileEntry.builder("2.0.0", "2026-01-02T00:00:00.000Z").build()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot set entry @acme/tool during convergence: convergence never writes the lockfile or the"
              + " tier");
      assertThatThrownBy(() -> context.remove(NAME)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("never writes the lockfile");
      assertThatThrownBy(() -> context.run(tx -> tx.remove(NAME))).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("never writes the lockfile");
      assertThatThrownBy(() -> context.requireStored(TierPath.LOCKFILE, () -> { }))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("never writes the lockfile");

      assertThat(context.lockfile()).isEqualTo(view);
      assertThat(context.holdsPulledExtensionsLock()).isTrue();
      assertThat(context.withPulledExtensionsLock(() -> "joined")).isEqualTo("joined");
    }
  }

  @Test
  void finish_endsTheChange() {
    ConvergeContext context = new ConvergeContext(Lockfile.EMPTY);
    assertThat(context.isRunning()).isTrue();

    context.finish();

    assertThat(context.isRunning()).isFalse();
    assertThatThrownBy(context::lockfile).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot read the lockfile: the convergence change has ended");
  }

  @Test
  void anotherThread_isRefused() {
    try (ConvergeContext context = new ConvergeContext(Lockfile.EMPTY)) {
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
