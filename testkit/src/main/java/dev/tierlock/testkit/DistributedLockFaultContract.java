package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.DistributedLock;
import dev.tierlock.LockLease;
import dev.tierlock.LockUnreadableException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The {@link DistributedLockContract} cases about faults: lost answers, outages, refusals, and lock
 * records that cannot be read.
 */
abstract class DistributedLockFaultContract extends DistributedLockSkewContract {

  private static final Duration BEAT = TTL.dividedBy(3);

  @Test
  public final void acquire_lostResponseOnCreate_holdsItsOwnLock() {
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);

    LockLease lease = lockOf("ada").acquire();

    assertThat(lease.isHeld()).isTrue();
    assertThat(storedHolder().nonce()).isEqualTo(lease.info().nonce());
    assertThat(logged(DatastoreOperation.WRITE)).containsExactly("mustNotExist -> FAULT:LOSE_RESPONSE");
    assertThat(logged(DatastoreOperation.READ)).containsExactly("always -> FOUND");
    assertThat(clock().sleeps()).isEmpty();
    heartbeats().beat();
    assertThat(lease.isHeld()).isTrue();
    lease.release();
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void acquire_retriedCreateFailingAgainstItsOwnLostWrite_holdsTheLock() {
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE)
        .failNext(DatastoreOperation.READ, 1, Fault.UNAVAILABLE);

    LockLease lease = lockOf("ada").acquire();

    assertThat(lease.isHeld()).isTrue();
    assertThat(storedHolder().nonce()).isEqualTo(lease.info().nonce());
    assertThat(logged(DatastoreOperation.WRITE))
        .containsExactly("mustNotExist -> FAULT:LOSE_RESPONSE", "mustNotExist -> PRECONDITION_FAILED");
    assertThat(logged(DatastoreOperation.READ)).containsExactly("always -> FAULT:UNAVAILABLE", "always -> FOUND");
    assertThat(clock().sleeps()).hasSize(1);
    lease.release();
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void acquire_createTimingOutBeforeApply_isResolvedAndRetried() {
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.TIMEOUT_BEFORE_APPLY);

    LockLease lease = lockOf("ada").acquire();

    assertThat(logged(DatastoreOperation.WRITE))
        .containsExactly("mustNotExist -> FAULT:TIMEOUT_BEFORE_APPLY", "mustNotExist -> WRITTEN");
    assertThat(logged(DatastoreOperation.READ)).containsExactly("always -> ABSENT");
    assertThat(storedHolder().nonce()).isEqualTo(lease.info().nonce());
    lease.release();
  }

  @Test
  public final void acquire_transientFailures_areRetriedWithinTheWait() {
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.UNAVAILABLE)
        .failNext(DatastoreOperation.WRITE, 1, Fault.THROTTLED);

    LockLease lease = lockOf("ada").acquire();

    assertThat(lease.isHeld()).isTrue();
    assertThat(logged(DatastoreOperation.WRITE)).containsExactly(
        "mustNotExist -> FAULT:UNAVAILABLE", "mustNotExist -> FAULT:THROTTLED", "mustNotExist -> WRITTEN");
    assertThat(clock().sleeps()).hasSize(2);
    lease.release();
  }

  @Test
  public final void acquire_storeOfflineThroughoutTheWait_failsWithTheStoreError() {
    DistributedLock lock = lockOf("ada");
    store().faults().offline();

    assertThatThrownBy(lock::acquire)
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessageStartingWith("Cannot ")
        .hasMessageContaining(KEY.value())
        .extracting(e -> ((DatastoreUnavailableException) e).code()).isEqualTo("datastore_unavailable");
    assertThat(clock().slept()).isEqualTo(OPTIONS.maxWait());
    store().faults().online();
    assertThat(lock.tryAcquire()).hasValueSatisfying(LockLease::release);
  }

  @Test
  public final void acquire_accessDenied_propagatesAtOnce() {
    DistributedLock lock = lockOf("ada");
    store().faults().failNext(DatastoreOperation.WRITE, 2, Fault.ACCESS_DENIED);

    assertThatThrownBy(lock::acquire)
        .isInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessageStartingWith("Cannot ")
        .extracting(e -> ((DatastoreAccessDeniedException) e).code()).isEqualTo("access_denied");
    assertThatThrownBy(lock::tryAcquire)
        .isInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessageStartingWith("Cannot ");
    assertThat(clock().sleeps()).isEmpty();
    assertThat(store().delegate().stat(KEY)).isEmpty();
    assertThat(lock.tryAcquire()).hasValueSatisfying(LockLease::release);
  }

  @Test
  public final void heartbeat_throughTransientFaults_keepsTheLeaseUntilTtlPasses() {
    LockLease lease = lockOf("ada").acquire();
    Instant start = clock().instant();

    store().faults().offline();
    beatAfter(BEAT);
    beatAfter(BEAT);
    assertThat(lease.isHeld()).as("20 s unconfirmed, under the 30 s ttl").isTrue();
    store().faults().online();
    beatAfter(BEAT.dividedBy(2));
    assertThat(storedHolder().acquiredAt()).isEqualTo(start.plus(Duration.ofSeconds(25)));
    store().faults().offline();
    beatAfter(BEAT);
    beatAfter(BEAT);
    assertThat(lease.isHeld()).isTrue();
    beatAfter(BEAT);

    assertThat(lease.isHeld()).as("a ttl without a confirmed heartbeat").isFalse();
    assertThat(heartbeats().running()).isZero();
    store().faults().online();
    DistributedLock bob = lockOf("bob");
    assertThat(bob.tryAcquire()).as("first sight of a record refreshed a ttl ago").isEmpty();
    clock().advance(TTL.plusMillis(1));
    LockLease successor = bob.tryAcquire().orElseThrow();
    lease.release();
    assertThat(storedHolder().nonce()).isEqualTo(successor.info().nonce());
    successor.release();
  }

  @Test
  public final void isHeld_heartbeatsStopped_turnsFalseNoLaterThanAPeerMayTakeOver() {
    LockLease lease = lockOf("ada").acquire();
    DistributedLock bob = lockOf("bob");
    assertThat(bob.tryAcquire()).as("bob sees the version as it is written").isEmpty();

    clock().advance(TTL.minusMillis(1));
    assertThat(lease.isHeld()).as("a millisecond inside its ttl, no heartbeat ran").isTrue();
    clock().advance(Duration.ofMillis(1));
    assertThat(lease.isHeld()).as("its only refresh is a ttl old: a peer may take it over a moment later").isFalse();
    assertThat(bob.tryAcquire()).as("bob has seen the version unchanged for exactly the ttl").isEmpty();
    clock().advance(Duration.ofMillis(1));
    LockLease successor = bob.tryAcquire().orElseThrow();

    assertThat(lease.isHeld()).isFalse();
    assertThat(successor.isHeld()).isTrue();
    lease.release();
    assertThat(storedHolder().nonce()).isEqualTo(successor.info().nonce());
    successor.release();
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void heartbeat_lostResponse_adoptsTheVersionItWrote() {
    LockLease lease = lockOf("ada").acquire();
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);

    beatAfter(BEAT);
    ObjectVersion adopted = storedVersion();
    beatAfter(BEAT);

    assertThat(lease.isHeld()).isTrue();
    assertThat(logged(DatastoreOperation.WRITE)).containsExactly("mustNotExist -> WRITTEN",
        logged(DatastoreOperation.WRITE).get(1), mustMatch(adopted) + " -> WRITTEN");
    assertThat(logged(DatastoreOperation.WRITE).get(1)).endsWith(" -> FAULT:LOSE_RESPONSE");
    assertThat(storedHolder().acquiredAt()).isEqualTo(clock().instant());
    lease.release();
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void release_afterAHeartbeatWhoseAnswerAndReadBackWereLost_deletesTheVersionThatLanded() {
    LockLease lease = lockOf("ada").acquire();
    ObjectVersion first = storedVersion();
    store().faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE)
        .failNext(DatastoreOperation.READ, 1, Fault.UNAVAILABLE);

    beatAfter(BEAT);
    ObjectVersion landed = storedVersion();
    lease.release();

    assertThat(landed).isNotEqualTo(first);
    assertThat(lease.isHeld()).isFalse();
    assertThat(logged(DatastoreOperation.DELETE))
        .containsExactly(mustMatch(first) + " -> PRECONDITION_FAILED", mustMatch(landed) + " -> DELETED");
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void heartbeat_lockDeletedBehindItsBack_losesTheLease() {
    LockLease lease = lockOf("ada").acquire();
    store().delegate().delete(KEY, WriteCondition.none());

    beatAfter(BEAT);
    lease.release();

    assertThat(lease.isHeld()).isFalse();
    assertThat(store().log().entries(DatastoreOperation.DELETE)).isEmpty();
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void takeOver_racingTheStaleHoldersHeartbeat_losesAndLeavesTheHolder() {
    ManualHeartbeats holderBeats = ManualHeartbeats.create();
    LockLease holder = peer("ada").heartbeats(holderBeats).build().acquire();
    clock().advance(TTL.multipliedBy(2).plusSeconds(1));
    // the holder wakes from its stall between the taker's read and its conditional takeover write
    store().faults().beforeNext(DatastoreOperation.READ, KEY::equals,
        () -> store().faults().beforeNext(DatastoreOperation.WRITE, KEY::equals, holderBeats::beat));

    Optional<LockLease> taken = lockOf("bob").tryAcquire();

    assertThat(taken).isEmpty();
    assertThat(holder.isHeld()).isTrue();
    assertThat(storedHolder().nonce()).isEqualTo(holder.info().nonce());
    assertThat(logged(DatastoreOperation.WRITE).get(3)).startsWith("mustMatch(").endsWith(" -> PRECONDITION_FAILED");
    assertThat(store().faults().pendingHooks()).isZero();
    holder.release();
  }

  @Test
  public final void takeOver_twoWaitersOnOneStaleVersion_exactlyOneWins() {
    LockLease stale = lockOf("ada").acquire();
    ObjectVersion staleVersion = storedVersion();
    clock().advance(TTL.multipliedBy(2).plusSeconds(1));
    DistributedLock cy = lockOf("cy");
    List<LockLease> cyTook = new ArrayList<>();
    // bob and cy both read the stale version; cy's takeover lands between bob's read and bob's write
    store().faults().beforeNext(DatastoreOperation.READ, KEY::equals,
        () -> store().faults().beforeNext(DatastoreOperation.WRITE, KEY::equals,
            () -> cy.tryAcquire().ifPresent(cyTook::add)));

    Optional<LockLease> bob = lockOf("bob").tryAcquire();

    assertThat(bob).isEmpty();
    assertThat(cyTook).hasSize(1);
    assertThat(storedHolder().nonce()).isEqualTo(cyTook.get(0).info().nonce());
    assertThat(logged(DatastoreOperation.WRITE).stream().filter(w -> w.startsWith(mustMatch(staleVersion))).toList())
        .containsExactly(mustMatch(staleVersion) + " -> WRITTEN", mustMatch(staleVersion) + " -> PRECONDITION_FAILED");
    heartbeats().beat();
    assertThat(stale.isHeld()).isFalse();
    assertThat(cyTook.get(0).isHeld()).isTrue();
    stale.release();
    cyTook.get(0).release();
    assertThat(store().delegate().stat(KEY)).isEmpty();
  }

  @Test
  public final void unreadableLock_isHeldUntilUnchangedForItsTtl_thenTakenOverConditionally() {
    plant("{\"holder\": \"half-writ");
    DistributedLock lock = lockOf("ada");

    assertThatThrownBy(lock::inspect)
        .isInstanceOf(LockUnreadableException.class)
        .hasMessageStartingWith("Cannot read lock \"" + KEY.value() + "\": the lock body is not valid JSON")
        .extracting(e -> ((LockUnreadableException) e).code()).isEqualTo("lock_unreadable");
    assertThat(lock.forceRelease("any-nonce")).isFalse();
    assertThat(lock.tryAcquire()).isEmpty();
    clock().advance(TTL);
    assertThat(lock.tryAcquire()).as("unchanged for exactly the ttl").isEmpty();
    clock().advance(Duration.ofMillis(1));
    ObjectVersion unreadable = storedVersion();
    Optional<LockLease> taken = lock.tryAcquire();

    assertThat(taken).isPresent();
    assertThat(logged(DatastoreOperation.WRITE)).last().isEqualTo(mustMatch(unreadable) + " -> WRITTEN");
    assertThat(store().log().entries(DatastoreOperation.DELETE)).isEmpty();
    assertThat(storedHolder().nonce()).isEqualTo(taken.get().info().nonce());
    taken.get().release();
  }

  @Test
  public final void unreadableLock_thatKeepsChanging_isNeverTakenOver() {
    DistributedLock lock = lockOf("ada");
    for (int i = 0; i < 12; i++) {
      plant("{\"partial\": " + i);
      assertThat(lock.tryAcquire()).as("attempt %d", i).isEmpty();
      clock().advance(BEAT);
    }
    assertThat(store().log().entries(DatastoreOperation.WRITE))
        .allSatisfy(e -> assertThat(e.condition()).isEqualTo("mustNotExist"));
  }

  private void beatAfter(Duration d) {
    clock().advance(d);
    heartbeats().beat();
  }

  private void plant(String body) {
    store().delegate().write(KEY, ObjectBody.of(body.getBytes(StandardCharsets.UTF_8)), WriteCondition.none(),
        ObjectMetadata.EMPTY);
  }
}
