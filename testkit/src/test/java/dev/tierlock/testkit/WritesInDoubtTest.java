package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes whose answer was lost, on the default fake remote (versions never repeat): a write whose
 * parent is still current has not landed yet and may still (a request held in a proxy, or applied
 * after the client timed out); it is never forgotten, later writes fence it, and wherever it lands
 * no peer's acknowledged change is reverted and no change of the caller's is lost untold.
 */
class WritesInDoubtTest {

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

  // A write whose answer was lost and whose read-back still showed its parent current has not landed
  // yet, and may still: a request queued in a proxy or still being processed when the client timed
  // out lands later, its precondition holding. It is never forgotten: the run keeps it in doubt and
  // sends it again as the same commit, so when the held request lands first the next fetch finds its
  // commit in the lineage and a peer's change made on top of it is not reverted. On the default store
  // (versions never repeat), so this is not the repeated-version case.

  @Test
  void aLostWriteThatLandsAfterTheReadBack_thenAPeerRemoval_keepsThePeersRemoval() {
    HeldWriteDatastore delaying = new HeldWriteDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", delaying).build());
    TestCheckout b = f.checkout("b");
    a.put("@s/base", "1");
    // a's read-back (a stat) shows the parent still current: not landed yet. Then, before a's next
    // send reaches the store, the delayed request lands and b, which took the stalled lease over,
    // removes @s/x.
    delaying.holdNextLockfileWrite(() -> f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      assertThat(delaying.deliver()).as("the delayed write lands: its precondition still holds")
          .isInstanceOf(WriteResult.Written.class);
      assertThat(versions(f.shared())).containsExactly(entry("@s/base", "1"), entry("@s/x", "1"));
      f.stallPastTheLease();
      assertThat(b.remove("@s/x").status()).as("b's removal is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);
    }));

    a.put("@s/x", "1");

    assertThat(f.store().faults().pendingHooks()).as("the delayed write landed, then b removed @s/x").isZero();
    assertThat(versions(f.shared())).as("b's acknowledged removal of @s/x, made after a's write landed")
        .containsExactly(entry("@s/base", "1"));
  }

  @Test
  void aWriteStillInDoubtWhenItsRunEnds_thatLandsDuringTheNextRun_isNotReappliedOverAPeer_andTheNextChangeIsPublished() {
    HeldWriteDatastore delaying = new HeldWriteDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", delaying).build());
    TestCheckout b = f.checkout("b");
    a.put("@s/base", "1");
    // the first send is held back; every later send of the same commit times out before it applies
    delaying.holdNextLockfileWrite(() -> f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1000,
        Fault.TIMEOUT_BEFORE_APPLY));
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(a.transaction().pending()).hasValueSatisfying(p -> assertThat(p.state())
        .isEqualTo(PendingChange.State.IN_FLIGHT));
    assertThat(versions(f.shared())).as("nothing landed yet").containsExactly(entry("@s/base", "1"));
    // the next run sends its own write; before it reaches the store, the held request lands and b
    // removes @s/x on top of it
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      assertThat(delaying.deliver()).isInstanceOf(WriteResult.Written.class);
      f.stallPastTheLease();
      assertThat(b.remove("@s/x").status()).isEqualTo(TransactionStatus.PUBLISHED);
    });

    TransactionResult next = a.put("@s/y", "1");

    assertThat(f.store().faults().pendingHooks()).isZero();
    assertThat(next.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(next.warnings()).as("@s/x was published, then removed by b: nothing was dropped").isEmpty();
    assertThat(versions(f.shared())).as("b's removal of @s/x, made on top of a's late write, is kept")
        .containsExactly(entry("@s/base", "1"), entry("@s/y", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  // A run that undoes its checkout's own change whose write is still in doubt (held back, its parent
  // still current) still writes the names that write carried, as it wants them: of the two writes
  // conditioned on one version at most one lands, so the held one can never land after the
  // acknowledged undo (on a store whose versions never repeat, or whose versions include the
  // metadata).

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

  // When an earlier write of a checkout's change is found landed during a later run (its request was
  // held back and arrived first), what the later run took back is taken back: the names the earlier
  // write carried are always part of the later write, rebased from what the earlier one carried.

  @Test
  void aRunThatTakesBackAChangeInDoubt_whileThePriorWriteLandsUnderIt_isAcknowledged_butTheEntryStays() {
    HeldWriteDatastore held = new HeldWriteDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", held).build());
    a.put("@s/base", "1");
    held.holdNextLockfileWrite(() -> f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1000,
        Fault.TIMEOUT_BEFORE_APPLY));
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(a.transaction().pending()).map(PendingChange::state).contains(PendingChange.State.IN_FLIGHT);
    // the held request arrives just before this run's own write reaches the store
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(),
        () -> assertThat(held.deliver()).isInstanceOf(WriteResult.Written.class));

    TransactionResult result = a.transaction().run(tx -> {
      tx.remove(name("@s/x"));
      tx.put(name("@s/y"), f.entry("1"));
    });

    assertThat(f.store().faults().pendingHooks()).isZero();
    assertThat(result.status()).as("the run is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).as("a's acknowledged run removed @s/x; nobody else touched it")
        .containsEntry("@s/y", "1").doesNotContainKey("@s/x");
  }

  // Re-applying a change whose write is still in doubt keeps judging that write: when the held
  // request lands first and a peer changes the entry on top of it, the re-applied change finds it in
  // the lineage and leaves the peer's change alone.

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

  // A lockfile write that fails in an unforeseen way once it is on its way (a bug in a wrapper, an
  // unchecked exception from a client library after the request went out) may have landed: it is
  // kept in flight and settled by the lineage, never reported as unpublished and replayed over a
  // peer's change made on top of it.

  @Test
  void anUncheckedFailureAfterTheWriteLanded_isAWriteInFlight_andThePeersLaterRemovalIsKept() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/base", "1");
    f.store().faults().afterNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      throw new IllegalStateException("a wrapper failed after the request went out");
    });

    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class)
        .hasRootCauseMessage("a wrapper failed after the request went out");

    assertThat(a.transaction().pending()).hasValueSatisfying(p -> assertThat(p.state())
        .isEqualTo(PendingChange.State.IN_FLIGHT));
    assertThat(versions(f.shared())).as("it landed").containsEntry("@s/x", "1");
    assertThat(b.remove("@s/x").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(a.put("@s/y", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).as("b's removal, made after a's write landed")
        .containsExactly(entry("@s/base", "1"), entry("@s/y", "1"));
  }

  // Re-applying a change whose landing the lineage could not prove does what its message says, and
  // no more: an entry another checkout changed to another value since is left alone (a conflict); an
  // entry still at the value the change was made on is set again, which is the one case the lineage
  // could not tell apart (not landed, or landed and set back by a peer), so the message names it.

  @Test
  void reapplyingAChangeInDoubt_leavesAPeersOtherValueAlone_andSetsAgainWhatIsAtItsOldValue_asItsMessageSays() {
    Datastore shortLineage = TransactionFixture.withMetadataCapacity(f.store(), LostAnswerScenarios.SHORT_CAPACITY);
    TestCheckout a = f.register(f.builder("a", shortLineage).build());
    TestCheckout b = f.register(f.builder("b", shortLineage).build());
    f.loseTheNextLockfileAnswerAndEveryReadBack(Fault.LOSE_RESPONSE);
    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.put(name("@s/y"), f.entry("1"));
      tx.put(name("@s/w"), f.entry("1"));
    })).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(versions(f.shared())).as("a's write landed").containsEntry("@s/y", "1").containsEntry("@s/w", "1");
    assertThat(b.remove("@s/y").status()).as("b sets @s/y back to its old value: absent").isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(b.put("@s/w", "2").status()).isEqualTo(TransactionStatus.PUBLISHED);
    for (int i = 0; i < LostAnswerScenarios.SHORT_LINEAGE + 2; i++) {
      b.put("@peer/p" + i, "1");
    }
    assertThatThrownBy(() -> a.put("@s/z", "1")).isInstanceOf(LockfileOutcomeUnknownException.class)
        .hasMessageContaining("an entry another checkout changed to another value since is left alone; one still at the"
            + " value the change was made on is set again, even where another checkout set it back to that value after"
            + " the change landed");

    Throwable outcome = catchThrowable(() -> a.transaction().reapplyPending());

    assertThat(outcome).as("the entry b changed to another value is a conflict").isInstanceOf(LockfileConflictException.class)
        .hasMessageContaining("@s/w");
    assertThat(versions(f.shared())).as("b's other value is left alone; the entry at its old value is set again")
        .containsEntry("@s/w", "2").containsEntry("@s/y", "1").doesNotContainKey("@s/z");
    assertThat(a.transaction().pending()).as("re-applied: nothing is pending").isEmpty();
  }
}
