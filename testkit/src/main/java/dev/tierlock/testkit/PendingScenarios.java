package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.DatastoreUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Pending changes and honest outcomes, for {@link LockfileTransactionContract}: a change that could
 * not be published is kept and published by the next run, rebased without reverting a peer; a
 * write whose answer was lost is settled by the lineage (landed, or provably not), and when the
 * lineage cannot tell, every run fails until the caller re-applies or discards it; a record that
 * cannot be read is never overwritten. Not thread-safe: one per test.
 */
final class PendingScenarios {

  private final TransactionFixture f;

  PendingScenarios(TransactionFixture fixture) {
    this.f = fixture;
  }

  void aFailedPublish_keepsTheChangePending_andTheNextRunReplaysItOntoAFreshFetch() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    b.put("@s/web", "1");
    f.failLockfileWrites();

    assertThatThrownBy(() -> a.put("@s/db", "2"))
        .isInstanceOf(ManagedConfigUnpublishedException.class)
        .hasMessageStartingWith("Cannot publish lockfile change to " + a.transaction().describe() + " (12 attempts): ")
        .hasMessageEndingWith("; the change (set @s/db 2) is saved in " + recordOf(a)
            + " and the next transaction on this checkout publishes it")
        .hasCauseInstanceOf(DatastoreUnavailableException.class)
        .extracting(e -> ((ManagedConfigUnpublishedException) e).code()).isEqualTo("managed_config_unpublished");
    assertThat(a.transaction().pending()).hasValueSatisfying(p -> {
      assertThat(p.state()).isEqualTo(PendingChange.State.UNPUBLISHED);
      assertThat(p.delta().names()).containsExactly(name("@s/db"));
      assertThat(p.blocksTransactions()).isFalse();
    });
    assertThat(versions(f.shared())).containsExactly(entry("@s/web", "1"));
    f.store().faults().clear();
    b.put("@s/api", "3");

    TransactionResult result = a.put("@s/ui", "4");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().names()).containsExactlyInAnyOrder(name("@s/db"), name("@s/ui"));
    assertThat(versions(f.shared())).containsExactly(entry("@s/web", "1"), entry("@s/api", "3"), entry("@s/db", "2"),
        entry("@s/ui", "4"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void aReplayedRemoval_survives() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    b.put("@s/x", "1");
    f.failLockfileWrites();
    assertThatThrownBy(() -> a.remove("@s/x")).isInstanceOf(ManagedConfigUnpublishedException.class);
    f.store().faults().clear();
    b.put("@s/y", "1");

    TransactionResult result = a.transaction().run(tx -> { });

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().removals()).containsExactly(name("@s/x"));
    assertThat(versions(f.shared())).containsExactly(entry("@s/y", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void twoFailedPublishes_keepBothChanges() {
    TestCheckout a = f.checkout("a");
    f.failLockfileWrites();
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(ManagedConfigUnpublishedException.class);
    f.failLockfileWrites();
    assertThatThrownBy(() -> a.put("@s/y", "1"))
        .isInstanceOf(ManagedConfigUnpublishedException.class)
        .hasMessageContaining("; the change (set @s/x 1, set @s/y 1) is saved in ");
    assertThat(a.transaction().pending()).hasValueSatisfying(p -> assertThat(p.delta().names())
        .containsExactlyInAnyOrder(name("@s/x"), name("@s/y")));
    f.store().faults().clear();

    assertThat(a.transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.PUBLISHED);

    assertThat(versions(f.shared())).containsOnly(entry("@s/x", "1"), entry("@s/y", "1"));
    assertThat(f.lockfileWrites()).isEqualTo(1);
  }

  void aStaleReplayedChange_isDroppedWithAWarning_onlyBecauseAPeerChangedItSince() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    b.put("@s/x", "1");
    b.put("@s/y", "1");
    f.failLockfileWrites();
    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.put(name("@s/x"), f.entry("2"));
      tx.put(name("@s/y"), f.entry("2"));
    })).isInstanceOf(ManagedConfigUnpublishedException.class);
    f.store().faults().clear();
    b.put("@s/x", "3");

    TransactionResult result = a.transaction().run(tx -> { });

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().names()).as("the name nobody changed since").containsExactly(name("@s/y"));
    assertThat(result.warnings()).singleElement().asString()
        .startsWith("Dropped the unpublished change to @s/x (this transaction: ")
        .contains("\"version\":\"2\"")
        .contains("published by another checkout: ")
        .contains("\"version\":\"3\"")
        .endsWith("): another checkout changed it since");
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "3"), entry("@s/y", "2"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void aStaleReplayedChange_droppedByARunThatThenFails_isToldInItsException() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    b.put("@s/x", "1");
    f.failLockfileWrites();
    assertThatThrownBy(() -> a.transaction().run(tx -> tx.put(name("@s/x"), f.entry("2"))))
        .isInstanceOf(ManagedConfigUnpublishedException.class);
    f.store().faults().clear();
    b.put("@s/x", "3");
    f.failLockfileWrites();

    assertThatThrownBy(() -> a.transaction().run(tx -> tx.put(name("@s/y"), f.entry("1"))))
        .isInstanceOfSatisfying(ManagedConfigUnpublishedException.class, e -> {
          assertThat(e.warnings()).singleElement().asString()
              .startsWith("Dropped the unpublished change to @s/x (this transaction: ")
              .endsWith("): another checkout changed it since");
          assertThat(e.getMessage()).contains("(also: Dropped the unpublished change to @s/x");
          assertThat(e.delta().names()).containsExactly(name("@s/y"));
        });
    f.store().faults().clear();
    assertThat(a.transaction().run(tx -> { }).delta().names()).containsExactly(name("@s/y"));
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "3"), entry("@s/y", "1"));
  }

  void anUnknownNewerPendingRecordVersion_isRefused_andKeptByteIdenticalUntilDiscarded() throws IOException {
    TestCheckout a = f.checkout("a");
    a.put("@s/x", "1");
    String newer = "{\"version\":5,\"change\":{\"set\":{\"@s/y\":\"2\"}},\"written-by\":\"tierlock 9\"}\n";
    Files.writeString(recordOf(a), newer);
    f.store().log().clear();

    for (ThrowingCallable run : List.<ThrowingCallable>of(() -> a.put("@s/z", "1"), () -> a.transaction().run(tx -> { }),
        () -> a.transaction().reapplyPending())) {
      assertBlocked(run, a, PendingChange.State.UNREADABLE, "")
          .hasMessage("Cannot run a transaction on " + a.transaction().describe() + ": the pending-change record "
              + recordOf(a) + " cannot be read (the record has format version 5, written by a newer Tierlock (this one"
              + " reads up to 4); publish it with that version, or discard it); it may hold a change that was never"
              + " published; check the shared lockfile, then discard it (tierlock pending discard)");
      assertThat(recordOf(a)).hasContent(newer);
    }
    assertThat(a.transaction().refresh().warnings()).singleElement().asString()
        .startsWith("A change of this checkout is pending (unreadable: unreadable record; the record has format version 5")
        .endsWith("); every transaction on this checkout fails until it is re-applied or discarded");
    assertThat(recordOf(a)).hasContent(newer);
    assertThat(f.lockfileWrites()).isZero();

    assertThat(a.transaction().discardPending()).hasValueSatisfying(p -> assertThat(p.state())
        .isEqualTo(PendingChange.State.UNREADABLE));

    assertThat(recordOf(a)).doesNotExist();
    assertThat(a.put("@s/z", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"), entry("@s/z", "1"));
  }

  void aDamagedPendingRecord_blocksEveryRun_untilDiscarded_andResurrectsNothing() throws IOException {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/x", "1");
    b.remove("@s/x");
    Files.writeString(recordOf(a), "2026-01-01T00:00:00.000Z");

    assertBlocked(() -> a.put("@s/y", "1"), a, PendingChange.State.UNREADABLE, "")
        .hasMessageStartingWith("Cannot run a transaction on " + a.transaction().describe() + ": the pending-change"
            + " record " + recordOf(a) + " cannot be read (");
    assertThat(recordOf(a)).hasContent("2026-01-01T00:00:00.000Z");
    assertThat(a.transaction().discardPending()).isPresent();

    assertThat(a.put("@s/y", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).as("b's acknowledged removal stands").containsExactly(entry("@s/y", "1"));
  }

  void aPendingRecordWithoutABase_neverRevertsAPeersNewerValue() throws IOException {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/x", "1");
    b.put("@s/x", "2");
    Files.writeString(recordOf(a), "{\"version\":1,\"upserts\":{\"@s/x\":{\"version\":\"1\","
        + "\"pulledAt\":\"2026-01-01T00:00:00.000Z\"},\"@s/y\":{\"version\":\"1\",\"pulledAt\":\"2026-01-01T00:00:00.000Z\"}},"
        + "\"removals\":[]}\n");

    TransactionResult result = a.transaction().run(tx -> { });

    assertThat(result.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(result.warnings()).hasSize(2).allSatisfy(w -> assertThat(w)
        .startsWith("Dropped the unpublished change to @s/")
        .endsWith("the pending record does not say what it was made on (an older tool's record), so it could revert"
            + " another checkout's change"));
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "2"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  /** Returns the pending-change record of {@code checkout}, which may not exist. */
  static Path recordOf(TestCheckout checkout) {
    return checkout.pendingRecordPath();
  }

  /**
   * Asserts that {@code run} fails with {@link LockfileOutcomeUnknownException} for the pending
   * change of {@code checkout} in {@code state}, describing {@code change} (ignored when empty),
   * and that the record says the same.
   */
  static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertBlocked(ThrowingCallable run,
      TestCheckout checkout, PendingChange.State state, String change) {
    return assertThatThrownBy(run)
        .isInstanceOf(LockfileOutcomeUnknownException.class)
        .hasMessageStartingWith(state == PendingChange.State.UNREADABLE
            ? "Cannot run a transaction on " + checkout.transaction().describe() + ": the pending-change record "
            : "Cannot confirm lockfile change to " + checkout.transaction().describe() + " (commit ")
        .satisfies(e -> {
          LockfileOutcomeUnknownException unknown = (LockfileOutcomeUnknownException) e;
          assertThat(unknown.code()).isEqualTo("lockfile_outcome_unknown");
          assertThat(unknown.pending().state()).isEqualTo(state);
          if (!change.isEmpty()) {
            assertThat(TransactionFixture.describe(unknown.delta())).isEqualTo(change);
            assertThat(e.getMessage()).contains("; the change (" + change + ") is kept in " + recordOf(checkout));
          }
          assertThat(checkout.transaction().pending()).as("the record").hasValueSatisfying(p -> {
            assertThat(p.state()).isEqualTo(state);
            assertThat(p.blocksTransactions()).isEqualTo(state == PendingChange.State.OUTCOME_UNKNOWN
                || state == PendingChange.State.UNREADABLE);
            assertThat(p.delta()).isEqualTo(unknown.delta());
          });
        });
  }
}
