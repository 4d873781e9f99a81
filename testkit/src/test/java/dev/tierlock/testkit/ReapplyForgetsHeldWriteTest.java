package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-applying a change whose write is still in doubt keeps judging that write: when the held
 * request lands first and a peer changes the entry on top of it, the re-applied change finds it in
 * the lineage and leaves the peer's change alone.
 */
class ReapplyForgetsHeldWriteTest {

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
  void reapplyingAnInFlightChange_whoseHeldWriteLandsAndIsThenRemovedByAPeer_keepsThePeersRemoval() {
    HeldWriteDatastore held = new HeldWriteDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", held).build());
    TestCheckout b = f.checkout("b");
    a.put("@s/base", "1");
    held.holdNextLockfileWrite(() -> f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1000,
        Fault.TIMEOUT_BEFORE_APPLY));
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(a.transaction().pending()).map(PendingChange::state).contains(PendingChange.State.IN_FLIGHT);
    // the re-applied write is about to reach the store: first the held request lands, then b removes @s/x
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      assertThat(held.deliver()).isInstanceOf(WriteResult.Written.class);
      f.stallPastTheLease();
      assertThat(b.remove("@s/x").status()).as("b's removal is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);
    });

    // (it ends PUBLISHED, with no warning)
    catchThrowable(() -> a.transaction().reapplyPending());

    assertThat(f.store().faults().pendingHooks()).isZero();
    assertThat(versions(f.shared())).as("b's acknowledged removal of @s/x, made on top of a's landed write")
        .containsExactly(entry("@s/base", "1"));
  }
}
