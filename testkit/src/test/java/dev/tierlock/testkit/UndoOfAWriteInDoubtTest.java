package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run that undoes its checkout's own change whose write is still in doubt (held back, its parent
 * still current) still writes the names that write carried, as it wants them: of the two writes
 * conditioned on one version at most one lands, so the held one can never land after the
 * acknowledged undo (on a store whose versions never repeat, or whose versions include the
 * metadata).
 */
class UndoOfAWriteInDoubtTest {

  @TempDir Path temp;

  private TransactionFixture f;

  @BeforeEach
  void open() {
    f = TransactionFixture.open(FakeRemote.create(), temp);
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void undoingAChangeWhoseWriteIsStillHeld_fencesTheHeldWrite_soTheUndoIsNeverLost() {
    HeldWriteDatastore held = new HeldWriteDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", held).build());
    a.put("@s/base", "1");
    // a's first send of @s/x is held back; every later send of the same commit times out before it applies
    held.holdNextLockfileWrite(() -> f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1000,
        Fault.TIMEOUT_BEFORE_APPLY));
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(a.transaction().pending()).map(PendingChange::state).contains(PendingChange.State.IN_FLIGHT);

    // told that @s/x is in flight, the caller takes it back: the run is acknowledged as published
    TransactionResult undo = a.remove("@s/x");
    assertThat(undo.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsExactly(entry("@s/base", "1"));

    // (the pending record that named the held write is cleared). The held request arrives now:
    // nothing was written since, so its precondition still holds
    WriteResult late = held.deliver();
    // and a's next run, which could still settle it
    a.put("@s/y", "1");

    assertThat(late).as("refused: the undo wrote @s/x as it wants it, on the version the held write was"
        + " conditioned on").isNotInstanceOf(WriteResult.Written.class);
    assertThat(versions(f.shared())).as("a's acknowledged removal of @s/x, made after its put; nobody changed"
        + " @s/x since").doesNotContainKey("@s/x");
  }
}
