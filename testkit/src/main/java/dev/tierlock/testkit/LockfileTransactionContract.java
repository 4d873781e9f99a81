package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract every datastore passes under {@link dev.tierlock.LockfileTransaction}: checkouts on
 * one fresh store (as separate machines, as two instances on one checkout, as processes that die
 * and restart), with faults injected by a {@link FaultyDatastore} around it, never lose an
 * acknowledged change, never drop a change without saying so, and write only the bytes they mean
 * to. A datastore module subclasses it in a few lines:
 *
 * <pre>{@code
 * class MyStoreLockfileTransactionContractTest extends LockfileTransactionContract {
 *   @Override protected Datastore createDatastore() { return MyStore.open(freshBucket()); }
 * }
 * }</pre>
 *
 * <p>Every case is listed below by name, grouped by concept, as a final method of this class; the
 * longer bodies live in one package-private class per group ({@code PublishingScenarios}, {@code
 * PendingScenarios}, {@code LostAnswerScenarios}, {@code RecoveryScenarios}, {@code
 * LocksScenarios}, {@code BoundaryScenarios}, {@code LockfileBytesScenarios}). Cases named after a
 * finding of issue 8 would fail on the code before it.
 * A store with a small metadata capacity is played by wrapping the store under test so that it
 * reports one; a store that ignores preconditions, by wrapping it so that it drops them. Not
 * thread-safe (JUnit runs one test per instance).
 */
public abstract class LockfileTransactionContract {

  @TempDir
  @Nullable Path temp;

  private @Nullable TransactionFixture fixture;

  /** For subclasses. */
  protected LockfileTransactionContract() {}

  /**
   * Returns a fresh, empty datastore (a new bucket, prefix or directory); called before each test
   * and closed after it. The contract wraps it in a {@link FaultyDatastore}.
   *
   * @return the store under test
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  @BeforeEach
  final void openFixture() throws Exception {
    if (temp == null) {
      throw new IllegalStateException("Cannot open the contract's fixture: JUnit gave no temp directory");
    }
    fixture = TransactionFixture.open(createDatastore(), temp);
  }

  @AfterEach
  final void closeFixture() {
    TransactionFixture open = fixture;
    fixture = null;
    if (open != null) {
      open.close();
    }
  }

  private TransactionFixture fixture() {
    TransactionFixture open = fixture;
    if (open == null) {
      throw new IllegalStateException("Cannot run a contract case: no test is running");
    }
    return open;
  }

  private PublishingScenarios publishing() {
    return new PublishingScenarios(fixture());
  }

  private PendingScenarios pending() {
    return new PendingScenarios(fixture());
  }

  private LostAnswerScenarios lostAnswers() {
    return new LostAnswerScenarios(fixture());
  }

  private RecoveryScenarios recovery() {
    return new RecoveryScenarios(fixture());
  }

  private LocksScenarios locks() {
    return new LocksScenarios(fixture());
  }

  private BoundaryScenarios boundaries() {
    return new BoundaryScenarios(fixture());
  }

  private LockfileBytesScenarios bytes() {
    return new LockfileBytesScenarios(fixture());
  }

  // ---- Publishing and rebase: once, on top of every peer, within the deadline ---------------------

  /** A checkout whose cache is stale keeps a peer's newer entry when it puts. */
  @Test
  public final void put_fromAStaleCache_keepsAPeersEntry() {
    publishing().put_fromAStaleCache_keepsAPeersEntry();
  }

  /** A checkout whose cache is stale keeps a peer's newer entry when it removes. */
  @Test
  public final void remove_fromAStaleCache_keepsAPeersAddition() {
    publishing().remove_fromAStaleCache_keepsAPeersAddition();
  }

  /** Finding 2: a holder paused past its lease, while a peer publishes, has its write refused and rebased. */
  @Test
  public final void aHolderPausedPastItsTtl_cannotOverwriteAPeersNewerVersion() {
    publishing().aHolderPausedPastItsTtl_cannotOverwriteAPeersNewerVersion();
  }

  /** A peer's change to the same entry at the same time wins that entry; the rest is published. */
  @Test
  public final void aConflictingPeerChange_failsThatEntryNamingBothValues_andPublishesTheRest() {
    publishing().aConflictingPeerChange_failsThatEntryNamingBothValues_andPublishesTheRest();
  }

  /** Nested runs join the outer one: one global lock acquisition, one lockfile write. */
  @Test
  public final void nestedRuns_acquireOnceAndPublishOnce() {
    publishing().nestedRuns_acquireOnceAndPublishOnce();
  }

  /** A nested change that throws undoes its own edits only. */
  @Test
  public final void aNestedChangeThatThrows_isUndone_andTheOuterChangeIsPublished() {
    publishing().aNestedChangeThatThrows_isUndone_andTheOuterChangeIsPublished();
  }

  /** A change that throws (an exception or an error) publishes nothing, keeps nothing, changes no cache. */
  @Test
  public final void aChangeThatThrows_publishesNothing_keepsNothing_andLeavesTheCache() {
    publishing().aChangeThatThrows_publishesNothing_keepsNothing_andLeavesTheCache();
  }

  /** Finding 7 (smaller): a put of the value already there, or undone in the same run, writes no lockfile. */
  @Test
  public final void aPutThatChangesNothing_writesNoLockfile() {
    publishing().aPutThatChangesNothing_writesNoLockfile();
  }

  /** A warm, uncontended put: lock, conditional read, write, unlock. */
  @Test
  public final void anUncontendedPut_costsFourRoundTrips() {
    publishing().anUncontendedPut_costsFourRoundTrips();
  }

  /** A write that timed out before it applied is proven absent and sent again. */
  @Test
  public final void aWriteThatTimedOutBeforeApplying_isPublishedAgain() {
    publishing().aWriteThatTimedOutBeforeApplying_isPublishedAgain();
  }

  /** Throttled writes are retried with waits a throttled store needs. */
  @Test
  public final void throttling_isAbsorbedWithinTheDeadline() {
    publishing().throttling_isAbsorbedWithinTheDeadline();
  }

  /** Throttling past the deadline ends unpublished within it, the change kept for the next run. */
  @Test
  public final void aThrottlingBurstLongerThanTheDeadline_endsUnpublished_withTheChangePending() {
    publishing().aThrottlingBurstLongerThanTheDeadline_endsUnpublished_withTheChangePending();
  }

  /** Under {@link dev.tierlock.PublishFailurePolicy#DEFER} a failed publish returns DEFERRED and is kept. */
  @Test
  public final void theDeferPolicy_returnsDeferred_andKeepsTheChangePending() {
    publishing().theDeferPolicy_returnsDeferred_andKeepsTheChangePending();
  }

  /** A change slower than the deadline still gets its one attempt. */
  @Test
  public final void aChangeThatUsesUpTheDeadline_isStillPublishedOnce() {
    publishing().aChangeThatUsesUpTheDeadline_isStillPublishedOnce();
  }

  /** A write refused after the deadline is not retried: it ends unpublished and the next run publishes it. */
  @Test
  public final void aRefusedWriteAfterTheDeadline_endsUnpublished_andTheNextRunPublishesIt() {
    publishing().aRefusedWriteAfterTheDeadline_endsUnpublished_andTheNextRunPublishesIt();
  }

  // ---- Pending changes ---------------------------------------------------------------------------

  /** A failed publish keeps the change; the next run publishes it on top of the peers' newer lockfile. */
  @Test
  public final void aFailedPublish_keepsTheChangePending_andTheNextRunReplaysItOntoAFreshFetch() {
    pending().aFailedPublish_keepsTheChangePending_andTheNextRunReplaysItOntoAFreshFetch();
  }

  /** A pending removal is replayed too. */
  @Test
  public final void aReplayedRemoval_survives() {
    pending().aReplayedRemoval_survives();
  }

  /** A second failed publish keeps both changes. */
  @Test
  public final void twoFailedPublishes_keepBothChanges() {
    pending().twoFailedPublishes_keepBothChanges();
  }

  /** A pending change is dropped, with a warning, only for an entry a peer really changed since. */
  @Test
  public final void aStaleReplayedChange_isDroppedWithAWarning_onlyBecauseAPeerChangedItSince() {
    pending().aStaleReplayedChange_isDroppedWithAWarning_onlyBecauseAPeerChangedItSince();
  }

  /** A pending change dropped for a peer's newer value by a run that then fails is named in that run's exception. */
  @Test
  public final void aStaleReplayedChange_droppedByARunThatThenFails_isToldInItsException() {
    pending().aStaleReplayedChange_droppedByARunThatThenFails_isToldInItsException();
  }

  /**
   * Finding 7: a record of a newer format is refused, never overwritten, until discarded.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void anUnknownNewerPendingRecordVersion_isRefused_andKeptByteIdenticalUntilDiscarded() throws Exception {
    pending().anUnknownNewerPendingRecordVersion_isRefused_andKeptByteIdenticalUntilDiscarded();
  }

  /**
   * A damaged record blocks every run until discarded, and nothing is guessed from it.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void aDamagedPendingRecord_blocksEveryRun_untilDiscarded_andResurrectsNothing() throws Exception {
    pending().aDamagedPendingRecord_blocksEveryRun_untilDiscarded_andResurrectsNothing();
  }

  /**
   * An older tool's record, which does not say what it was made on, never reverts a peer.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void aPendingRecordWithoutABase_neverRevertsAPeersNewerValue() throws Exception {
    pending().aPendingRecordWithoutABase_neverRevertsAPeersNewerValue();
  }

  // ---- Lost answers and honest outcomes ----------------------------------------------------------

  /** A lost answer is settled by one read-back: landed, one write. */
  @Test
  public final void aLostAnswerWithAWorkingReadBack_resolvesToSuccess_withOneWrite() {
    lostAnswers().aLostAnswerWithAWorkingReadBack_resolvesToSuccess_withOneWrite();
  }

  /** A lost answer whose read-back fails is settled by the run's next fetch, never written twice. */
  @Test
  public final void aLostAnswerWithAFailedReadBack_isSettledByTheNextFetchOfTheSameRun() {
    lostAnswers().aLostAnswerWithAFailedReadBack_isSettledByTheNextFetchOfTheSameRun();
  }

  /** A lost answer, then a stall in which a peer removes the entry: landed, and the removal stands. */
  @Test
  public final void aLostAnswer_thenAPeerRemovalWhileStalled_keepsThePeersRemoval() {
    lostAnswers().aLostAnswer_thenAPeerRemovalWhileStalled_keepsThePeersRemoval();
  }

  /** An unanswered write that did not land, then a peer's publish: proven absent by the lineage, published on top. */
  @Test
  public final void anUnansweredWriteThatDidNotLand_thenAPeerPublishWhileStalled_isPublishedOnTopOfIt() {
    lostAnswers().anUnansweredWriteThatDidNotLand_thenAPeerPublishWhileStalled_isPublishedOnTopOfIt();
  }

  /** Finding 7: a lost answer on the last attempt is an unknown outcome (in flight), never "unpublished". */
  @Test
  public final void aLostAnswerOnTheLastAttempt_isAnUnknownOutcomeInFlight_notUnpublished_whateverThePolicy() {
    lostAnswers().aLostAnswerOnTheLastAttempt_isAnUnknownOutcomeInFlight_notUnpublished_whateverThePolicy();
  }

  /** Finding 1: past the lineage, the change is never dropped; every run fails until it is re-applied. */
  @Test
  public final void aLostAnswer_thenMorePeerCommitsThanTheLineageHolds_blocksEveryRunUntilReapplied_withoutRevertingAPeer() {
    lostAnswers().aLostAnswer_thenMorePeerCommitsThanTheLineageHolds_blocksEveryRunUntilReapplied_withoutRevertingAPeer();
  }

  /** Finding 1: or until it is discarded. */
  @Test
  public final void aLostAnswer_thenMorePeerCommitsThanTheLineageHolds_isClearedOnlyByDiscarding() {
    lostAnswers().aLostAnswer_thenMorePeerCommitsThanTheLineageHolds_isClearedOnlyByDiscarding();
  }

  /** Finding 1: within the lineage, a write that landed is settled on its own and not applied again. */
  @Test
  public final void aLostAnswer_thenFewerPeerCommitsThanTheLineageHolds_isSettledAsLanded() {
    lostAnswers().aLostAnswer_thenFewerPeerCommitsThanTheLineageHolds_isSettledAsLanded();
  }

  /** Finding 1: within the lineage, a write that did not land is settled on its own and published again. */
  @Test
  public final void aLostAnswer_thenFewerPeerCommitsThanTheLineageHolds_isSettledAsNotLanded_andPublishedAgain() {
    lostAnswers().aLostAnswer_thenFewerPeerCommitsThanTheLineageHolds_isSettledAsNotLanded_andPublishedAgain();
  }

  // ---- Crash recovery ------------------------------------------------------------------------------

  /** A process that dies inside its change leaves nothing to replay. */
  @Test
  public final void aCrashInsideTheChange_leavesNothing_andTheRestartedCheckoutPublishesNothing() {
    recovery().aCrashInsideTheChange_leavesNothing_andTheRestartedCheckoutPublishesNothing();
  }

  /** A process that dies before its write is sent: the restarted checkout publishes the change. */
  @Test
  public final void aCrashBeforeTheWriteWasSent_isPublishedByTheRestartedCheckout() {
    recovery().aCrashBeforeTheWriteWasSent_isPublishedByTheRestartedCheckout();
  }

  /** ...and when a peer changed one of its entries meanwhile, that entry keeps the peer's value. */
  @Test
  public final void aCrashBeforeTheWriteWasSent_thenAPeerChangedOneOfItsEntries_keepsThePeersValue_andPublishesTheRest() {
    recovery().aCrashBeforeTheWriteWasSent_thenAPeerChangedOneOfItsEntries_keepsThePeersValue_andPublishesTheRest();
  }

  /** A pending entry dropped for a peer's newer value by a run that then died is told by the next run. */
  @Test
  public final void aRunThatDroppedAPendingEntryAndDied_leavesTheNextRunToTellIt() {
    recovery().aRunThatDroppedAPendingEntryAndDied_leavesTheNextRunToTellIt();
  }

  /** A process that dies after its write landed, before it cleared its record, is not replayed over a peer. */
  @Test
  public final void aCrashBetweenThePublishAndClearingTheRecord_isSettledAsLanded_andNeverRevertsALaterPeer() {
    recovery().aCrashBetweenThePublishAndClearingTheRecord_isSettledAsLanded_andNeverRevertsALaterPeer();
  }

  /** Finding 7: a failed record cleanup after a successful publish is a warning, not a failure. */
  @Test
  public final void aFailedRecordCleanupAfterASuccessfulPublish_isAWarning_andTheNextRunSettlesTheRecord() {
    recovery().aFailedRecordCleanupAfterASuccessfulPublish_isAWarning_andTheNextRunSettlesTheRecord();
  }

  /**
   * A process that dies before the archive its change installs landed leaves no entry to replay.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void aCrashBeforeItsArchiveLanded_leavesNoEntryToReplay() throws Exception {
    recovery().aCrashBeforeItsArchiveLanded_leavesNoEntryToReplay();
  }

  /**
   * A process that dies after its archive landed: the restarted checkout publishes the entry that pins it.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void aCrashAfterItsArchiveLanded_publishesTheEntryThatPinsIt() throws Exception {
    recovery().aCrashAfterItsArchiveLanded_publishesTheEntryThatPinsIt();
  }

  /**
   * Two instances on one checkout never interleave, even when one stalled past its lease and the other took it.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void twoInstancesOnOneCheckout_serialiseTheirRuns_evenWhenOneStallsPastItsLease() throws Exception {
    recovery().twoInstancesOnOneCheckout_serialiseTheirRuns_evenWhenOneStallsPastItsLease();
  }

  /**
   * Another process holding the checkout: the run times out naming that process.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void aCheckoutLockedByAnotherProcess_timesTheRunOutNamingTheLock() throws Exception {
    recovery().aCheckoutLockedByAnotherProcess_timesTheRunOutNamingTheLock();
  }

  // ---- Locks ------------------------------------------------------------------------------------

  /** A run (or refresh, or re-apply) started inside a run on the same thread is refused. */
  @Test
  public final void startingARunInsideARun_isRejected_andReleasesTheLocks() {
    locks().startingARunInsideARun_isRejected_andReleasesTheLocks();
  }

  /** Locks are taken in order: the global lock inside the pulled-extensions lock is refused. */
  @Test
  public final void lockOrder_theGlobalLockInsideThePulledExtensionsLock_isRejected() {
    locks().lockOrder_theGlobalLockInsideThePulledExtensionsLock_isRejected();
  }

  /** Pulled-extensions sections nest inside one run and are released after it. */
  @Test
  public final void pulledExtensionsSections_nestInsideOneRun_andAreReleasedAfterIt() {
    locks().pulledExtensionsSections_nestInsideOneRun_andAreReleasedAfterIt();
  }

  /** A live holder of the global lock times the lock out, named in the message. */
  @Test
  public final void aLiveHolder_timesTheLockOut_namingIt() {
    locks().aLiveHolder_timesTheLockOut_namingIt();
  }

  /** An unreachable store fails the lock as unavailable, changing nothing. */
  @Test
  public final void anUnreachableStore_failsTheLockAsUnavailable_andChangesNothing() {
    locks().anUnreachableStore_failsTheLockAsUnavailable_andChangesNothing();
  }

  /** Finding 2: a checkout on the store and one on a wrapper around it share the lock and lose nothing. */
  @Test
  public final void checkoutsOfDifferentConfigurationsOnOneStore_interleaved_loseNothing() {
    locks().checkoutsOfDifferentConfigurationsOnOneStore_interleaved_loseNothing();
  }

  // ---- What a run may read, write and touch -------------------------------------------------------

  /** A failed fetch runs no change and changes nothing. */
  @Test
  public final void aFailedFetch_runsNoChange_andChangesNothing() {
    boundaries().aFailedFetch_runsNoChange_andChangesNothing();
  }

  /** {@code refresh()} is read-only: one conditional read, no lock write, a pending change left pending. */
  @Test
  public final void refresh_isReadOnly_costsOneConditionalRead_andLeavesAPendingChangePending() {
    boundaries().refresh_isReadOnly_costsOneConditionalRead_andLeavesAPendingChangePending();
  }

  /** Finding 5: reads need no lock; a snapshot costs one read and writes nothing. */
  @Test
  public final void snapshot_needsNoLock_costsOneRead_andWritesNothing_whileAnotherCheckoutHoldsTheGlobalLock() {
    boundaries().snapshot_needsNoLock_costsOneRead_andWritesNothing_whileAnotherCheckoutHoldsTheGlobalLock();
  }

  /** Finding 5: no write outside a run: a leaked context refuses everything. */
  @Test
  public final void theContext_refusesEveryUseAfterItsChangeReturned() {
    boundaries().theContext_refusesEveryUseAfterItsChangeReturned();
  }

  /**
   * Finding 5: a context used from another thread is refused; another thread's run publishes only its own change.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void theContext_usedFromAnotherThreadDuringARun_isRefused_andNothingIsSweptIntoTheRun() throws Exception {
    boundaries().theContext_usedFromAnotherThreadDuringARun_isRefused_andNothingIsSweptIntoTheRun();
  }

  /**
   * Nothing internal travels, checked on the operation log and on what the store holds.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void onlyTheLockfile_theGlobalLockAndTheSelfCheck_areEverWritten() throws Exception {
    boundaries().onlyTheLockfile_theGlobalLockAndTheSelfCheck_areEverWritten();
  }

  /** Finding 3: a store that ignores preconditions surfaces from {@code run} as {@code DatastoreUnsafeException}. */
  @Test
  public final void aStoreThatIgnoresPreconditions_isRefusedByRunAsUnsafe_beforeAnyWrite() {
    boundaries().aStoreThatIgnoresPreconditions_isRefusedByRunAsUnsafe_beforeAnyWrite();
  }

  // ---- Lockfile bytes -----------------------------------------------------------------------------

  /** Finding 6: a put of an unrelated name leaves every other member of a real lockfile byte-identical. */
  @Test
  public final void aPutOfAnUnrelatedName_leavesEveryOtherMemberByteIdentical_inTheStoredObject() {
    bytes().aPutOfAnUnrelatedName_leavesEveryOtherMemberByteIdentical_inTheStoredObject();
  }

  /** Finding 6: a put keeps the file's byte order mark, line endings and a one-line object. */
  @Test
  public final void aPut_keepsTheByteOrderMarkTheLineEndingsAndAOneLineObject() {
    bytes().aPut_keepsTheByteOrderMarkTheLineEndingsAndAOneLineObject();
  }

  /** Finding 6: a write to a foreign member is refused and changes nothing. */
  @Test
  public final void aWriteToAForeignMember_isRefused_andChangesNothing() {
    bytes().aWriteToAForeignMember_isRefused_andChangesNothing();
  }

  /** Finding 7: a huge object at the lockfile's key is a clear error, not an OutOfMemoryError. */
  @Test
  public final void aHugeObjectAtTheLockfileKey_isAClearObjectTooLargeError_andChangesNothing() {
    bytes().aHugeObjectAtTheLockfileKey_isAClearObjectTooLargeError_andChangesNothing();
  }

  /** A lockfile that is not JSON is refused, naming the position, and never replaced. */
  @Test
  public final void aLockfileThatIsNotJson_isRefusedNamingThePosition_andNeverReplaced() {
    bytes().aLockfileThatIsNotJson_isRefusedNamingThePosition_andNeverReplaced();
  }
}
