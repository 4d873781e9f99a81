package dev.tierlock.testkit;

import static dev.tierlock.testkit.PendingScenarios.assertBlocked;
import static dev.tierlock.testkit.PendingScenarios.recordOf;
import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileEntry;
import dev.tierlock.PendingChange;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;

/**
 * Lost answers and honest outcomes, for {@link LockfileTransactionContract}: a write whose answer
 * was lost is settled by reading the lineage back (landed: once, never again; provably not landed:
 * published again on top of the peers), and when the lineage cannot tell (it is shorter than the
 * peers' commits since, played by a store that reports a small metadata capacity) the change is
 * neither dropped nor re-applied on its own: every run fails until the caller re-applies or
 * discards it. Not thread-safe: one per test.
 */
final class LostAnswerScenarios {

  /**
   * A metadata capacity that keeps a lineage of {@value #SHORT_LINEAGE} commit ids of 16
   * characters (the commit's own and four it was built on), so that a few peer commits outrun it.
   */
  static final int SHORT_CAPACITY = 190;

  /** The lineage {@link #SHORT_CAPACITY} keeps. */
  static final int SHORT_LINEAGE = 5;

  private final TransactionFixture f;

  LostAnswerScenarios(TransactionFixture fixture) {
    this.f = fixture;
  }

  void aLostAnswerWithAWorkingReadBack_resolvesToSuccess_withOneWrite() {
    TestCheckout a = f.checkout("a");
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.LOSE_RESPONSE);

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(result.warnings()).isEmpty();
    assertThat(f.store().log().entries(DatastoreOperation.WRITE)).filteredOn(e -> e.target().equals(
        TransactionFixture.LOCKFILE_KEY.value())).hasSize(1);
    assertThat(f.store().log().count(DatastoreOperation.STAT)).as("one read-back").isEqualTo(1);
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void aLostAnswerWithAFailedReadBack_isSettledByTheNextFetchOfTheSameRun() {
    TestCheckout a = f.checkout("a");
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.LOSE_RESPONSE)
        .failNext(DatastoreOperation.STAT, isLockfile(), 1, Fault.UNAVAILABLE);

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(f.store().log().entries(DatastoreOperation.WRITE)).filteredOn(e -> e.target().equals(
        TransactionFixture.LOCKFILE_KEY.value())).as("never written twice").hasSize(1);
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void aLostAnswer_thenAPeerRemovalWhileStalled_keepsThePeersRemoval() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.LOSE_RESPONSE);
    f.store().faults().beforeNext(DatastoreOperation.STAT, isLockfile(), () -> {
      f.stallPastTheLease();
      assertThat(b.remove("@s/x").status()).isEqualTo(TransactionStatus.PUBLISHED);
    });

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).as("a's write landed: b's version is built on it").isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(f.shared().contains(name("@s/x"))).as("b's acknowledged removal").isFalse();
    assertThat(a.transaction().pending()).isEmpty();
    assertThat(a.transaction().run(tx -> assertThat(tx.entry(name("@s/x"))).isEmpty()).status())
        .isEqualTo(TransactionStatus.NO_CHANGE);
  }

  void anUnansweredWriteThatDidNotLand_thenAPeerPublishWhileStalled_isPublishedOnTopOfIt() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    a.put("@s/x", "1");
    f.store().log().clear();
    // armed once a's write is on its way: its read-back is the next stat
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> f.store().faults()
        .beforeNext(DatastoreOperation.STAT, isLockfile(), () -> {
          f.stallPastTheLease();
          b.put("@s/peer", "1");
        }));
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.TIMEOUT_BEFORE_APPLY);

    TransactionResult result = a.put("@s/x", "2");

    assertThat(result.status()).as("the lineage proves the write did not land").isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "2"), entry("@s/peer", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void aLostAnswerOnTheLastAttempt_isAnUnknownOutcomeInFlight_notUnpublished_whateverThePolicy() {
    TestCheckout a = f.register(f.builder("a").maxPublishAttempts(1).publishFailurePolicy(PublishFailurePolicy.DEFER)
        .build());
    f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.LOSE_RESPONSE)
        .failNext(DatastoreOperation.STAT, isLockfile(), 1, Fault.UNAVAILABLE);

    assertBlocked(() -> a.put("@s/x", "1"), a, PendingChange.State.IN_FLIGHT, "set @s/x 1")
        .hasMessageContaining(": its write went unanswered and reading the shared lockfile back failed; the change"
            + " (set @s/x 1) is kept in " + recordOf(a) + " and the next transaction on this checkout settles it from"
            + " the lineage, publishing it again only if it did not land")
        .hasCauseInstanceOf(OutcomeUnknownException.class);
    f.store().faults().clear();

    TransactionResult settled = a.transaction().run(tx -> { });

    assertThat(settled.status()).as("the lineage shows it landed: nothing to publish again")
        .isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(f.lockfileWrites()).isEqualTo(1);
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  /**
   * Finding 1 of issue 8. The write did not land, its answer was lost and no read-back worked; then
   * more peer commits than the lineage holds: the old code dropped the change with a warning.
   */
  void aLostAnswer_thenMorePeerCommitsThanTheLineageHolds_blocksEveryRunUntilReapplied_withoutRevertingAPeer() {
    Datastore shortLineage = TransactionFixture.withMetadataCapacity(f.store(), SHORT_CAPACITY);
    TestCheckout a = f.register(f.builder("a", shortLineage).build());
    TestCheckout b = f.register(f.builder("b", shortLineage).build());
    b.put("@s/x", "0");
    inFlight(a, Fault.TIMEOUT_BEFORE_APPLY);
    b.put("@s/x", "2");
    peerCommits(b, SHORT_LINEAGE + 2);
    assertThat(f.sharedLineage()).as("the lineage is short").hasSize(SHORT_LINEAGE);

    assertBlocked(() -> a.put("@s/z", "1"), a, PendingChange.State.OUTCOME_UNKNOWN, "set @s/x 1, set @s/y 1")
        .hasMessageContaining(" went unanswered and the shared lockfile has moved on (now version ")
        .hasMessageContaining(") without a lineage that shows whether it landed; the change (set @s/x 1, set @s/y 1) is"
            + " kept in " + recordOf(a) + " and every transaction on this checkout fails until you re-apply it (tierlock"
            + " pending apply: an entry another checkout changed to another value since is left alone; one still at the"
            + " value the change was made on is set again, even where another checkout set it back to that value after"
            + " the change landed) or discard it (tierlock pending discard)");
    assertBlocked(() -> a.transaction().run(tx -> { }), a, PendingChange.State.OUTCOME_UNKNOWN, "set @s/x 1, set @s/y 1");
    assertBlocked(() -> a.remove("@s/x"), a, PendingChange.State.OUTCOME_UNKNOWN, "set @s/x 1, set @s/y 1");
    TransactionResult refreshed = a.transaction().refresh();
    assertThat(refreshed.warnings()).singleElement().asString().startsWith("A change of this checkout is pending"
        + " (outcome unknown: set @s/x 1, set @s/y 1 (commit ")
        .endsWith("); every transaction on this checkout fails until it is re-applied or discarded");
    assertThat(versions(f.shared())).as("nothing of a's was published, nothing of b's reverted")
        .containsEntry("@s/x", "2").doesNotContainKeys("@s/y", "@s/z");

    assertThatThrownBy(() -> a.transaction().reapplyPending())
        .isInstanceOf(LockfileConflictException.class)
        .hasMessageStartingWith("Cannot publish lockfile change to " + a.transaction().describe()
            + ": another checkout changed @s/x (this transaction: ")
        .satisfies(e -> assertThat(((LockfileConflictException) e).conflicts()).singleElement().satisfies(c -> {
          assertThat(c.name()).isEqualTo(name("@s/x"));
          assertThat(c.ours()).map(LockfileEntry::version).contains("1");
          assertThat(c.theirs()).map(LockfileEntry::version).contains("2");
        }));

    assertThat(versions(f.shared())).containsEntry("@s/x", "2").containsEntry("@s/y", "1").doesNotContainKey("@s/z");
    assertThat(a.transaction().pending()).isEmpty();
    assertThat(a.put("@s/z", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsEntry("@s/x", "2").containsEntry("@s/y", "1").containsEntry("@s/z", "1");
  }

  /** Finding 1 of issue 8, resolved the other way: the caller discards the change in doubt. */
  void aLostAnswer_thenMorePeerCommitsThanTheLineageHolds_isClearedOnlyByDiscarding() {
    Datastore shortLineage = TransactionFixture.withMetadataCapacity(f.store(), SHORT_CAPACITY);
    TestCheckout a = f.register(f.builder("a", shortLineage).build());
    TestCheckout b = f.register(f.builder("b", shortLineage).build());
    b.put("@s/x", "0");
    inFlight(a, Fault.LOSE_RESPONSE);
    b.put("@s/x", "2");
    peerCommits(b, SHORT_LINEAGE + 2);
    assertBlocked(() -> a.put("@s/z", "1"), a, PendingChange.State.OUTCOME_UNKNOWN, "set @s/x 1, set @s/y 1");
    long writes = f.lockfileWrites();

    assertThat(a.transaction().discardPending()).hasValueSatisfying(p -> {
      assertThat(p.state()).isEqualTo(PendingChange.State.OUTCOME_UNKNOWN);
      assertThat(p.delta().names()).containsExactly(name("@s/x"), name("@s/y"));
    });

    assertThat(a.transaction().pending()).isEmpty();
    assertThat(recordOf(a)).as("the record's file stays, saying nothing is pending").exists();
    assertThat(f.lockfileWrites()).as("discarding publishes nothing").isEqualTo(writes);
    assertThat(versions(f.shared())).as("the write had landed; b's later change stands")
        .containsEntry("@s/x", "2").containsEntry("@s/y", "1");
    assertThat(a.put("@s/z", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).containsEntry("@s/x", "2").containsEntry("@s/y", "1").containsEntry("@s/z", "1");
  }

  /** Finding 1 of issue 8 with fewer peer commits than the lineage holds: settled on its own, as landed. */
  void aLostAnswer_thenFewerPeerCommitsThanTheLineageHolds_isSettledAsLanded() {
    Datastore shortLineage = TransactionFixture.withMetadataCapacity(f.store(), SHORT_CAPACITY);
    TestCheckout a = f.register(f.builder("a", shortLineage).build());
    TestCheckout b = f.register(f.builder("b", shortLineage).build());
    b.put("@s/x", "0");
    inFlight(a, Fault.LOSE_RESPONSE);
    b.put("@s/x", "2");
    peerCommits(b, SHORT_LINEAGE - 3);

    TransactionResult result = a.put("@s/z", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().names()).as("the landed change is not published again").containsExactly(name("@s/z"));
    assertThat(result.warnings()).isEmpty();
    assertThat(versions(f.shared())).as("b's later change to @s/x is not reverted")
        .containsEntry("@s/x", "2").containsEntry("@s/y", "1").containsEntry("@s/z", "1");
    assertThat(a.transaction().pending()).isEmpty();
  }

  /** Finding 1 of issue 8 with fewer peer commits than the lineage holds: settled on its own, as not landed. */
  void aLostAnswer_thenFewerPeerCommitsThanTheLineageHolds_isSettledAsNotLanded_andPublishedAgain() {
    Datastore shortLineage = TransactionFixture.withMetadataCapacity(f.store(), SHORT_CAPACITY);
    TestCheckout a = f.register(f.builder("a", shortLineage).build());
    TestCheckout b = f.register(f.builder("b", shortLineage).build());
    b.put("@s/x", "0");
    inFlight(a, Fault.TIMEOUT_BEFORE_APPLY);
    b.put("@s/x", "2");
    peerCommits(b, SHORT_LINEAGE - 3);

    TransactionResult result = a.put("@s/z", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.delta().names()).containsExactlyInAnyOrder(name("@s/y"), name("@s/z"));
    assertThat(result.warnings()).singleElement().asString()
        .startsWith("Dropped the unpublished change to @s/x (this transaction: ")
        .endsWith("): another checkout changed it since");
    assertThat(versions(f.shared())).containsEntry("@s/x", "2").containsEntry("@s/y", "1").containsEntry("@s/z", "1");
    assertThat(a.transaction().pending()).isEmpty();
  }

  /**
   * Runs {@code a}'s change {x=1, y=1} with the write's answer lost and every read-back failing:
   * the run must end with the write in flight.
   */
  private void inFlight(TestCheckout a, Fault fault) {
    f.loseTheNextLockfileAnswerAndEveryReadBack(fault);
    assertBlocked(() -> a.transaction().run(tx -> {
      tx.put(name("@s/x"), f.entry("1"));
      tx.put(name("@s/y"), f.entry("1"));
    }), a, PendingChange.State.IN_FLIGHT, "set @s/x 1, set @s/y 1")
        .hasCauseInstanceOf(DatastoreUnavailableException.class);
    f.store().faults().clear();
  }
  /** Makes {@code count} commits of {@code peer}, each a new name. */
  private static void peerCommits(TestCheckout peer, int count) {
    for (int i = 0; i < count; i++) {
      assertThat(peer.put("@peer/p" + i, "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    }
  }
}
