package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.DistributedLock;
import dev.tierlock.Tierlock;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of the datastore global lock ({@link DistributedLock}) as {@link Tierlock} builds it
 * over a {@link Datastore}: every datastore module runs it against its own store by subclassing it
 * and implementing one hook, {@link #createDatastore()}:
 *
 * <pre>{@code
 * @ExtendWith(MyServerExtension.class)
 * class MyStoreDistributedLockContractTest extends DistributedLockContract {
 *   private final MyTestBucket bucket;
 *
 *   MyStoreDistributedLockContractTest(MyTestBucket bucket) {   // one fresh bucket per test
 *     this.bucket = bucket;
 *   }
 *
 *   @Override protected Datastore createDatastore() { return MyStore.open(bucket, "tier"); }
 * }
 * }</pre>
 *
 * <p>The lock lives at {@code ns1/.datastore.lock}. Each test gets a fresh store wrapped in {@link
 * FaultyDatastore}, which first passes Tierlock's precondition self-check ({@link
 * Tierlock#checkDatastore()}; its calls and its verdict object are left out of what the cases
 * count), a {@link TestClock} whose sleeper is the only way the locks wait, heartbeats beaten by
 * hand ({@link ManualHeartbeats}), and a Tierlock of its own per peer, its checkout in a temporary
 * directory; only {@link
 * #acquireRelease_fourThreads_areMutuallyExclusive()} uses real time and real threads. Every case
 * is listed below as a final method with a line saying what it proves; its body is a scenario of
 * one concept (lease lifecycle, takeover and staleness, clock skew, faults, holders on the waiter's
 * own host, reservations of the next turn) in a package-private
 * class of this package, so nothing is inherited and nothing is hidden. Not thread-safe (JUnit runs
 * one test per instance).
 */
public abstract class DistributedLockContract {

  private @Nullable LockFixture fixture;

  /** Where the peers' checkouts live. */
  @TempDir
  Path checkouts;

  /** For subclasses. */
  protected DistributedLockContract() {}

  /**
   * {@return a fresh, empty datastore (a new bucket, prefix or directory); called before each test
   * and closed after it}
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  @BeforeEach
  final void openLockStore() throws Exception {
    FaultyDatastore store = FaultyDatastore.wrap(createDatastore());
    try {
      assertThat(store.delegate().stat(LockFixture.KEY)).as("createDatastore() must return an empty store").isEmpty();
      fixture = new LockFixture(store, TestClock.create(), ManualHeartbeats.create(), checkouts);
    } catch (RuntimeException | Error e) {
      store.close();
      throw e;
    }
  }

  @AfterEach
  final void closeLockStore() {
    LockFixture current = fixture;
    fixture = null;
    if (current != null) {
      current.store().close();
    }
  }

  // Lease lifecycle (LockLeaseScenarios)

  /**
   * A free lock is acquired by one create-only write, inspected as its holder, and released by one
   * conditional delete; a second release makes no call.
   */
  @Test
  public final void acquireInspectRelease_freeLock_holdsItThenDeletesItsOwnVersionOnce() {
    lease().acquireInspectRelease_freeLock_holdsItThenDeletesItsOwnVersionOnce();
  }

  /** A heartbeat rewrites the record conditionally on the version it holds. */
  @Test
  public final void heartbeat_refreshesTheRecordConditionally() {
    lease().heartbeat_refreshesTheRecordConditionally();
  }

  /** {@code withLock} holds the lock while the action runs and releases it after. */
  @Test
  public final void withLock_releasesAfterTheAction() {
    lease().withLock_releasesAfterTheAction();
  }

  /** A waiter on a held lock backs off within bounds and times out naming the key, the holder and the time waited. */
  @Test
  public final void acquire_busy_timesOutWithKeyHolderAndTimeWaited() {
    lease().acquire_busy_timesOutWithKeyHolderAndTimeWaited();
  }

  /** A force-release deletes only the holding with the given nonce, and that holder learns it lost the lease. */
  @Test
  public final void forceRelease_byNonce_deletesOnlyThatHolding() {
    lease().forceRelease_byNonce_deletesOnlyThatHolding();
  }

  /** A force-release with a blank nonce is refused before any call. */
  @Test
  public final void forceRelease_blankNonce_isRejectedAndChangesNothing() {
    lease().forceRelease_blankNonce_isRejectedAndChangesNothing();
  }

  /** {@code tryAcquire} returns empty on a held lock and a lease once it is free, never waiting. */
  @Test
  public final void tryAcquire_busyThenFree_returnsEmptyThenALeaseWithoutWaiting() {
    lease().tryAcquire_busyThenFree_returnsEmptyThenALeaseWithoutWaiting();
  }

  /** Every call of acquire, takeover, release, force-release and inspect touches the lock's key alone. */
  @Test
  public final void lockKey_neverLeavesTheNamespace() {
    lease().lockKey_neverLeavesTheNamespace();
  }

  /**
   * Taking the global lock inside the pulled-extensions lock breaks the lock order and is refused before any call.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void acquire_whileHoldingAnInnerLock_isRejectedBeforeAnyCall() throws IOException {
    lease().acquire_whileHoldingAnInnerLock_isRejectedBeforeAnyCall();
  }

  /**
   * Four threads in real time, 25 rounds each, are never inside the lock together.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void acquireRelease_fourThreads_areMutuallyExclusive() throws Exception {
    lease().acquireRelease_fourThreads_areMutuallyExclusive();
  }

  // Takeover and staleness (LockTakeoverScenarios)

  /**
   * A holder the waiter saw silent for over its ttl is taken over by a write conditional on its
   * version, and its lease turns lost.
   */
  @Test
  public final void acquire_staleHolder_isTakenOverByAConditionalWrite_andTheOldLeaseLearnsItIsLost() {
    takeover().acquire_staleHolder_isTakenOverByAConditionalWrite_andTheOldLeaseLearnsItIsLost();
  }

  /** A holder that keeps beating is never taken over, however long the waiter waits. */
  @Test
  public final void acquire_liveHolder_isNeverStolen() {
    takeover().acquire_liveHolder_isNeverStolen();
  }

  /** A release after a takeover deletes nothing: its delete is conditional on its own version. */
  @Test
  public final void release_neverDeletesASuccessorsLock() {
    takeover().release_neverDeletesASuccessorsLock();
  }

  /** {@code tryAcquire} takes over a holder seen unchanged for longer than its ttl. */
  @Test
  public final void tryAcquire_staleHolder_isTakenOver() {
    takeover().tryAcquire_staleHolder_isTakenOver();
  }

  /** A lease whose heartbeats stopped reports itself lost no later than a peer may take it over. */
  @Test
  public final void isHeld_heartbeatsStopped_turnsFalseNoLaterThanAPeerMayTakeOver() {
    takeover().isHeld_heartbeatsStopped_turnsFalseNoLaterThanAPeerMayTakeOver();
  }

  /** A takeover that races the stale holder's late heartbeat loses, and the holder keeps the lock. */
  @Test
  public final void takeOver_racingTheStaleHoldersHeartbeat_losesAndLeavesTheHolder() {
    takeover().takeOver_racingTheStaleHoldersHeartbeat_losesAndLeavesTheHolder();
  }

  /** Two waiters taking over one stale version: exactly one wins. */
  @Test
  public final void takeOver_twoWaitersOnOneStaleVersion_exactlyOneWins() {
    takeover().takeOver_twoWaitersOnOneStaleVersion_exactlyOneWins();
  }

  /**
   * A lock record that cannot be read counts as held until unchanged for its ttl, then is taken
   * over conditionally, never deleted.
   */
  @Test
  public final void tryAcquire_unreadableRecord_isTakenOverConditionallyOnceUnchangedForItsTtl() {
    takeover().tryAcquire_unreadableRecord_isTakenOverConditionallyOnceUnchangedForItsTtl();
  }

  /** An unreadable lock record that keeps changing is never taken over. */
  @Test
  public final void tryAcquire_unreadableRecordThatKeepsChanging_isNeverTakenOver() {
    takeover().tryAcquire_unreadableRecordThatKeepsChanging_isNeverTakenOver();
  }

  // Clock skew and crashed holders (LockClockSkewScenarios)

  /** A live holder whose clock lags the waiter's by 0.9 ttl is never taken over. */
  @Test
  public final void acquire_liveHolderWhoseClockLagsByMostOfATtl_isNeverTakenOver() {
    clockSkew().acquire_liveHolderWhoseClockLagsByMostOfATtl_isNeverTakenOver();
  }

  /** A live holder whose clock lags the waiter's by over twice its ttl (61 s) is never taken over, not even at first sight. */
  @Test
  public final void acquire_liveHolderWhoseClockLagsTheWaitersByOverTwiceItsTtl_isNeverTakenOver() {
    clockSkew().acquire_liveHolderWhoseClockLagsTheWaitersByOverTwiceItsTtl_isNeverTakenOver();
  }

  /** A crashed holder is taken over once the waiter itself has seen its version unchanged for longer than the ttl. */
  @Test
  public final void tryAcquire_crashedHolder_isTakenOverOnceTheWaiterSawItsVersionUnchangedForATtl() {
    clockSkew().tryAcquire_crashedHolder_isTakenOverOnceTheWaiterSawItsVersionUnchangedForATtl();
  }

  /**
   * A record that looks ten ttls old by the waiter's clock is taken over only once the waiter itself
   * has seen it unchanged for longer than the ttl: its timestamp is another clock's.
   */
  @Test
  public final void tryAcquire_recordOldByTheWaitersClock_isTakenOverOnlyOnceTheWaiterSawItUnchangedForATtl() {
    clockSkew().tryAcquire_recordOldByTheWaitersClock_isTakenOverOnlyOnceTheWaiterSawItUnchangedForATtl();
  }

  // Faults (LockFaultScenarios)

  /** A create whose answer is lost is resolved by a read: the lock is ours. */
  @Test
  public final void acquire_lostResponseOnCreate_holdsItsOwnLock() {
    faults().acquire_lostResponseOnCreate_holdsItsOwnLock();
  }

  /** A retried create that fails against our own lost write still holds the lock. */
  @Test
  public final void acquire_retriedCreateFailingAgainstItsOwnLostWrite_holdsTheLock() {
    faults().acquire_retriedCreateFailingAgainstItsOwnLostWrite_holdsTheLock();
  }

  /** A create that timed out before it applied is resolved as absent and retried. */
  @Test
  public final void acquire_createTimingOutBeforeApply_isResolvedAndRetried() {
    faults().acquire_createTimingOutBeforeApply_isResolvedAndRetried();
  }

  /** Unavailable and throttled answers are retried within the wait. */
  @Test
  public final void acquire_transientFailures_areRetriedWithinTheWait() {
    faults().acquire_transientFailures_areRetriedWithinTheWait();
  }

  /** A store offline for the whole wait fails with its own unavailable error after the full wait. */
  @Test
  public final void acquire_storeOfflineThroughoutTheWait_failsWithTheStoreError() {
    faults().acquire_storeOfflineThroughoutTheWait_failsWithTheStoreError();
  }

  /** Access denied reaches the caller at once, with no wait and nothing written. */
  @Test
  public final void acquire_accessDenied_propagatesAtOnce() {
    faults().acquire_accessDenied_propagatesAtOnce();
  }

  /** Heartbeats through an outage keep the lease until a ttl passes unconfirmed, then it is lost. */
  @Test
  public final void heartbeat_throughTransientFaults_keepsTheLeaseUntilTtlPasses() {
    faults().heartbeat_throughTransientFaults_keepsTheLeaseUntilTtlPasses();
  }

  /** A heartbeat whose answer is lost adopts the version it wrote. */
  @Test
  public final void heartbeat_lostResponse_adoptsTheVersionItWrote() {
    faults().heartbeat_lostResponse_adoptsTheVersionItWrote();
  }

  /** A release after a heartbeat whose answer and read-back were lost deletes the version that landed. */
  @Test
  public final void release_afterAHeartbeatWhoseAnswerAndReadBackWereLost_deletesTheVersionThatLanded() {
    faults().release_afterAHeartbeatWhoseAnswerAndReadBackWereLost_deletesTheVersionThatLanded();
  }

  /** A heartbeat that finds the record deleted loses the lease, and release deletes nothing. */
  @Test
  public final void heartbeat_lockDeletedBehindItsBack_losesTheLease() {
    faults().heartbeat_lockDeletedBehindItsBack_losesTheLease();
  }

  // A holder on the waiter's own host (LockSameHostScenarios)

  /** A holder on this host whose process is gone is taken over at once, without waiting for its ttl. */
  @Test
  public final void acquire_sameHostHolderWhoseProcessIsGone_isTakenOverAtOnce() {
    sameHost().acquire_sameHostHolderWhoseProcessIsGone_isTakenOverAtOnce();
  }

  /** A holder on this host whose pid now names a process started at another time is taken over at once. */
  @Test
  public final void acquire_sameHostHolderWhosePidWasReused_isTakenOverAtOnce() {
    sameHost().acquire_sameHostHolderWhosePidWasReused_isTakenOverAtOnce();
  }

  /** A live holder on this host is never taken over. */
  @Test
  public final void acquire_liveSameHostHolder_isNotTakenOver() {
    sameHost().acquire_liveSameHostHolder_isNotTakenOver();
  }

  /** A record of this host without a process start time (the original tool's) waits out its ttl, even if its pid is gone. */
  @Test
  public final void tryAcquire_sameHostRecordWithoutAStartTime_waitsOutItsTtl() {
    sameHost().tryAcquire_sameHostRecordWithoutAStartTime_waitsOutItsTtl();
  }

  /**
   * A live holder in another pid namespace of this host (a container sharing its name) is never
   * judged by this namespace's pids: it waits out its ttl, measured by the waiter alone.
   */
  @Test
  public final void tryAcquire_liveHolderInAnotherPidNamespaceOfThisHost_waitsOutItsTtl() {
    sameHost().tryAcquire_liveHolderInAnotherPidNamespaceOfThisHost_waitsOutItsTtl();
  }

  /** A same-host record with a start time but no pid namespace (an older Tierlock's) waits out its ttl. */
  @Test
  public final void tryAcquire_sameHostRecordWithAStartTimeButNoNamespace_waitsOutItsTtl() {
    sameHost().tryAcquire_sameHostRecordWithAStartTimeButNoNamespace_waitsOutItsTtl();
  }

  /** A holder on another host waits out its ttl, whatever runs under its pid here. */
  @Test
  public final void tryAcquire_holderOnAnotherHost_waitsOutItsTtl() {
    sameHost().tryAcquire_holderOnAnotherHost_waitsOutItsTtl();
  }

  /** Two waiters on the host of a dead holder take it over conditionally: exactly one wins. */
  @Test
  public final void takeOver_twoSameHostWaitersOfADeadHolder_exactlyOneWins() {
    sameHost().takeOver_twoSameHostWaitersOfADeadHolder_exactlyOneWins();
  }

  // Bounded waits across processes (LockReservationScenarios)

  /**
   * A waiter past its bound reserves the next turn; a contended peer holds back even while the lock
   * stands free, and the reserver gets the lock and removes its reservation.
   */
  @Test
  public final void acquire_starvedWaiter_reservesTheNextTurn_andContendedPeersHoldBackUntilItHasTheLock() {
    reservation().acquire_starvedWaiter_reservesTheNextTurn_andContendedPeersHoldBackUntilItHasTheLock();
  }

  /** A dead reserver holds a contended peer back no longer than its ttl; its reservation is then removed conditionally. */
  @Test
  public final void tryAcquire_deadReserver_holdsBackNoLongerThanItsTtl() {
    reservation().tryAcquire_deadReserver_holdsBackNoLongerThanItsTtl();
  }

  /** A dead reserver whose clock ran ahead holds back no longer than its ttl from the peer's first sight. */
  @Test
  public final void tryAcquire_deadReserverWhoseClockRanAhead_holdsBackNoLongerThanItsTtlFromFirstSight() {
    reservation().tryAcquire_deadReserverWhoseClockRanAhead_holdsBackNoLongerThanItsTtlFromFirstSight();
  }

  /** An uncontended acquire is one create-only write and its release one conditional delete: no call for reservations. */
  @Test
  public final void acquireAndRelease_uncontended_areOneCreateAndOneDelete() {
    reservation().acquireAndRelease_uncontended_areOneCreateAndOneDelete();
  }

  /** A holder that knows nothing of reservations (the original tool) still excludes a reserver by the lock object alone. */
  @Test
  public final void acquire_aHolderThatKnowsNothingOfReservations_isStillExcludedByTheLockObject() {
    reservation().acquire_aHolderThatKnowsNothingOfReservations_isStillExcludedByTheLockObject();
  }

  private LockFixture fixture() {
    LockFixture current = fixture;
    if (current == null) {
      throw new IllegalStateException("Cannot use the lock contract's fixtures: no test is running");
    }
    return current;
  }

  private LockLeaseScenarios lease() {
    return new LockLeaseScenarios(fixture());
  }

  private LockTakeoverScenarios takeover() {
    return new LockTakeoverScenarios(fixture());
  }

  private LockClockSkewScenarios clockSkew() {
    return new LockClockSkewScenarios(fixture());
  }

  private LockFaultScenarios faults() {
    return new LockFaultScenarios(fixture());
  }

  private LockSameHostScenarios sameHost() {
    return new LockSameHostScenarios(fixture());
  }

  private LockReservationScenarios reservation() {
    return new LockReservationScenarios(fixture());
  }
}
