package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.PendingChange;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reapplyPending()} on a change whose write is in flight (not landed yet: its parent is still
 * current) forgets that write: the run judges it not landed yet, then clears the writes in doubt
 * it would keep beside its own, as it does for a change whose landing could not be proven. Its
 * javadoc says that for any pending change but an outcome-unknown one it is what the next run does
 * anyway; the next run keeps such a write in doubt ({@code WritesInDoubtTest}). A re-applied
 * change whose own send then fails is recorded as unpublished, with no write in flight, and when
 * the forgotten request arrives the checkout takes its own write for another checkout's change:
 * the caller's next edit of that name is dropped as a conflict, and the value it replaced stands.
 *
 * <p>Found by {@link LockfileTransactionPropertyTest} with {@code DELAYED_WRITE}. Fixed since: a re-applied change
 * keeps every write in doubt; the control (the same with {@code run}) passes too.
 */
class ReapplyForgetsWriteInDoubtTest {

  @TempDir Path temp;

  private TransactionFixture f;
  private HeldWriteDatastore delaying;
  private TestCheckout a;

  @BeforeEach
  void open() {
    f = TransactionFixture.open(FakeRemote.create(), temp);
    delaying = new HeldWriteDatastore(f.store());
    a = f.register(f.builder("a", delaying).build());
    a.put("@s/base", "1");
    // the first send is held back; every later send of the run times out before it applies
    delaying.holdNextLockfileWrite(() -> f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1000,
        Fault.TIMEOUT_BEFORE_APPLY));
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(a.transaction().pending()).hasValueSatisfying(p -> assertThat(p.state())
        .isEqualTo(PendingChange.State.IN_FLIGHT));
  }

  /** Re-applies the pending change; its own send never reaches the store. */
  private void reapplyWhileTheStoreIsUnavailable() {
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1000, Fault.UNAVAILABLE);
    assertThatThrownBy(() -> a.transaction().reapplyPending()).as("its write is still in doubt")
        .isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(versions(f.shared())).as("nothing landed yet").containsExactly(entry("@s/base", "1"));
  }

  /** The control: a run that publishes nothing new, whose own send never reaches the store, keeps the write in doubt. */
  @Test
  void aRunWhoseSendFails_keepsTheWriteInDoubt_andTheNextChangeIsPublishedOverIt() {
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1000, Fault.UNAVAILABLE);
    assertThatThrownBy(() -> a.transaction().run(tx -> { })).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(a.transaction().pending()).hasValueSatisfying(p -> assertThat(p.state())
        .isEqualTo(PendingChange.State.IN_FLIGHT));
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () ->
        assertThat(delaying.deliver()).isInstanceOf(WriteResult.Written.class));

    TransactionResult next = a.put("@s/x", "2");

    assertThat(next.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsExactly(entry("@s/base", "1"), entry("@s/x", "2"));
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void aReappliedChange_keepsItsWriteInDoubt() {
    reapplyWhileTheStoreIsUnavailable();

    assertThat(a.transaction().pending()).as("the held request can still land: the change is in flight")
        .hasValueSatisfying(p -> assertThat(p.state()).isEqualTo(PendingChange.State.IN_FLIGHT));
  }

  @Test
  void aWriteInDoubtThatLandsAfterAReapply_isNotTakenForAnotherCheckoutsChange() {
    reapplyWhileTheStoreIsUnavailable();
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () ->
        assertThat(delaying.deliver()).as("its parent is still current").isInstanceOf(WriteResult.Written.class));

    TransactionResult next;
    try {
      next = a.put("@s/x", "2");
    } catch (LockfileConflictException e) {
      throw new AssertionError("a's own late write was taken for another checkout's change: " + e.getMessage(), e);
    }

    assertThat(f.store().faults().pendingHooks()).as("the held request landed").isZero();
    assertThat(next.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).as("a's later value of @s/x").containsExactly(entry("@s/base", "1"),
        entry("@s/x", "2"));
  }
}
