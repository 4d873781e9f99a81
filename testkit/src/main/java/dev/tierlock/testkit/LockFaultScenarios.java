package dev.tierlock.testkit;

import static dev.tierlock.testkit.LockFixture.BEAT;
import static dev.tierlock.testkit.LockFixture.KEY;
import static dev.tierlock.testkit.LockFixture.OPTIONS;
import static dev.tierlock.testkit.LockFixture.TTL;
import static dev.tierlock.testkit.LockFixture.mustMatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.DistributedLock;
import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import java.time.Duration;
import java.time.Instant;

/**
 * The {@link DistributedLockContract} cases about faults: lost answers, timeouts before apply,
 * transient failures, outages and refusals on acquire; heartbeats through faults and after the
 * record vanished; a release after a heartbeat whose answer and read-back were lost.
 */
final class LockFaultScenarios {

  private final LockFixture fixture;
  private final FaultyDatastore store;
  private final TestClock clock;
  private final ManualHeartbeats heartbeats;

  LockFaultScenarios(LockFixture fixture) {
    this.fixture = fixture;
    this.store = fixture.store();
    this.clock = fixture.clock();
    this.heartbeats = fixture.heartbeats();
  }

  void acquire_lostResponseOnCreate_holdsItsOwnLock() {
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);

    DistributedLock.Held lease = fixture.lockOf("ada").acquire();

    assertThat(lease.isHeld()).isTrue();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(lease.info().nonce());
    assertThat(fixture.logged(DatastoreOperation.WRITE)).containsExactly("mustNotExist -> FAULT:LOSE_RESPONSE");
    assertThat(fixture.logged(DatastoreOperation.READ)).containsExactly("always -> FOUND");
    assertThat(clock.sleeps()).isEmpty();
    heartbeats.beat();
    assertThat(lease.isHeld()).isTrue();
    lease.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void acquire_retriedCreateFailingAgainstItsOwnLostWrite_holdsTheLock() {
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE)
        .failNext(DatastoreOperation.READ, 1, Fault.UNAVAILABLE);

    DistributedLock.Held lease = fixture.lockOf("ada").acquire();

    assertThat(lease.isHeld()).isTrue();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(lease.info().nonce());
    assertThat(fixture.logged(DatastoreOperation.WRITE))
        .containsExactly("mustNotExist -> FAULT:LOSE_RESPONSE", "mustNotExist -> PRECONDITION_FAILED");
    assertThat(fixture.logged(DatastoreOperation.READ)).containsExactly("always -> FAULT:UNAVAILABLE", "always -> FOUND");
    assertThat(clock.sleeps()).hasSize(1);
    lease.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void acquire_createTimingOutBeforeApply_isResolvedAndRetried() {
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.TIMEOUT_BEFORE_APPLY);

    DistributedLock.Held lease = fixture.lockOf("ada").acquire();

    assertThat(fixture.logged(DatastoreOperation.WRITE))
        .containsExactly("mustNotExist -> FAULT:TIMEOUT_BEFORE_APPLY", "mustNotExist -> WRITTEN");
    assertThat(fixture.logged(DatastoreOperation.READ)).containsExactly("always -> ABSENT");
    assertThat(fixture.storedHolder().nonce()).isEqualTo(lease.info().nonce());
    lease.release();
  }

  void acquire_transientFailures_areRetriedWithinTheWait() {
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.UNAVAILABLE)
        .failNext(DatastoreOperation.WRITE, 1, Fault.THROTTLED);

    DistributedLock.Held lease = fixture.lockOf("ada").acquire();

    assertThat(lease.isHeld()).isTrue();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).containsExactly(
        "mustNotExist -> FAULT:UNAVAILABLE", "mustNotExist -> FAULT:THROTTLED", "mustNotExist -> WRITTEN");
    assertThat(clock.sleeps()).hasSize(2);
    lease.release();
  }

  void acquire_storeOfflineThroughoutTheWait_failsWithTheStoreError() {
    DistributedLock lock = fixture.lockOf("ada");
    store.faults().offline();

    assertThatThrownBy(lock::acquire)
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessageStartingWith("Cannot ")
        .hasMessageContaining(KEY.value())
        .extracting(e -> ((DatastoreUnavailableException) e).code()).isEqualTo("datastore_unavailable");
    assertThat(clock.slept()).isEqualTo(OPTIONS.maxWait());
    store.faults().online();
    assertThat(lock.tryAcquire()).hasValueSatisfying(DistributedLock.Held::release);
  }

  void acquire_accessDenied_propagatesAtOnce() {
    DistributedLock lock = fixture.lockOf("ada");
    store.faults().failNext(DatastoreOperation.WRITE, 2, Fault.ACCESS_DENIED);

    assertThatThrownBy(lock::acquire)
        .isInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessageStartingWith("Cannot ")
        .extracting(e -> ((DatastoreAccessDeniedException) e).code()).isEqualTo("access_denied");
    assertThatThrownBy(lock::tryAcquire)
        .isInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessageStartingWith("Cannot ");
    assertThat(clock.sleeps()).isEmpty();
    assertThat(store.delegate().stat(KEY)).isEmpty();
    assertThat(lock.tryAcquire()).hasValueSatisfying(DistributedLock.Held::release);
  }

  void heartbeat_throughTransientFaults_keepsTheLeaseUntilTtlPasses() {
    DistributedLock.Held lease = fixture.lockOf("ada").acquire();
    Instant start = clock.instant();

    store.faults().offline();
    fixture.beatAfter(BEAT);
    fixture.beatAfter(BEAT);
    assertThat(lease.isHeld()).as("20 s unconfirmed, under the 30 s ttl").isTrue();
    store.faults().online();
    fixture.beatAfter(BEAT.dividedBy(2));
    assertThat(fixture.storedHolder().acquiredAt()).isEqualTo(start.plus(Duration.ofSeconds(25)));
    store.faults().offline();
    fixture.beatAfter(BEAT);
    fixture.beatAfter(BEAT);
    assertThat(lease.isHeld()).isTrue();
    fixture.beatAfter(BEAT);

    assertThat(lease.isHeld()).as("a ttl without a confirmed heartbeat").isFalse();
    assertThat(heartbeats.running()).isZero();
    store.faults().online();
    DistributedLock bob = fixture.lockOf("bob");
    assertThat(bob.tryAcquire()).as("first sight of a record refreshed a ttl ago").isEmpty();
    clock.advance(TTL.plusMillis(1));
    DistributedLock.Held successor = bob.tryAcquire().orElseThrow();
    lease.release();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(successor.info().nonce());
    successor.release();
  }

  void heartbeat_lostResponse_adoptsTheVersionItWrote() {
    DistributedLock.Held lease = fixture.lockOf("ada").acquire();
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);

    fixture.beatAfter(BEAT);
    ObjectVersion adopted = fixture.storedVersion();
    fixture.beatAfter(BEAT);

    assertThat(lease.isHeld()).isTrue();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).containsExactly("mustNotExist -> WRITTEN",
        fixture.logged(DatastoreOperation.WRITE).get(1), mustMatch(adopted) + " -> WRITTEN");
    assertThat(fixture.logged(DatastoreOperation.WRITE).get(1)).endsWith(" -> FAULT:LOSE_RESPONSE");
    assertThat(fixture.storedHolder().acquiredAt()).isEqualTo(clock.instant());
    lease.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void release_afterAHeartbeatWhoseAnswerAndReadBackWereLost_deletesTheVersionThatLanded() {
    DistributedLock.Held lease = fixture.lockOf("ada").acquire();
    ObjectVersion first = fixture.storedVersion();
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE)
        .failNext(DatastoreOperation.READ, 1, Fault.UNAVAILABLE);

    fixture.beatAfter(BEAT);
    ObjectVersion landed = fixture.storedVersion();
    lease.release();

    assertThat(landed).isNotEqualTo(first);
    assertThat(lease.isHeld()).isFalse();
    assertThat(fixture.logged(DatastoreOperation.DELETE))
        .containsExactly(mustMatch(first) + " -> PRECONDITION_FAILED", mustMatch(landed) + " -> DELETED");
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void heartbeat_lockDeletedBehindItsBack_losesTheLease() {
    DistributedLock.Held lease = fixture.lockOf("ada").acquire();
    store.delegate().delete(KEY, WriteCondition.none());

    fixture.beatAfter(BEAT);
    lease.release();

    assertThat(lease.isHeld()).isFalse();
    assertThat(store.log().entries(DatastoreOperation.DELETE)).isEmpty();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }
}
