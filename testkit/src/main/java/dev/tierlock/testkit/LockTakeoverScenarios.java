package dev.tierlock.testkit;

import static dev.tierlock.testkit.LockFixture.BEAT;
import static dev.tierlock.testkit.LockFixture.KEY;
import static dev.tierlock.testkit.LockFixture.OPTIONS;
import static dev.tierlock.testkit.LockFixture.TTL;
import static dev.tierlock.testkit.LockFixture.mustMatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.DistributedLock;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.LockUnreadableException;
import dev.tierlock.spi.ObjectVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@link DistributedLockContract} cases about takeover and staleness: a stale holder taken
 * over by a conditional write and its lease learning of the loss, a live holder never stolen, a
 * release that never deletes a successor's lock, a takeover racing the holder's heartbeat or
 * another waiter, and lock records that cannot be read.
 */
final class LockTakeoverScenarios {

  private final LockFixture fixture;
  private final FaultyDatastore store;
  private final TestClock clock;
  private final ManualHeartbeats heartbeats;

  LockTakeoverScenarios(LockFixture fixture) {
    this.fixture = fixture;
    this.store = fixture.store();
    this.clock = fixture.clock();
    this.heartbeats = fixture.heartbeats();
  }

  void acquire_staleHolder_isTakenOverByAConditionalWrite_andTheOldLeaseLearnsItIsLost() {
    DistributedLock.Held old = fixture.lockOf("ada").acquire();
    ObjectVersion stale = fixture.storedVersion();
    DistributedLock bob = fixture.lockOf("bob");
    assertThat(bob.tryAcquire()).as("bob's first sight of ada's version").isEmpty();
    clock.advance(TTL.plusMillis(1));

    DistributedLock.Held successor = bob.acquire();

    assertThat(clock.sleeps()).isEmpty();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).containsExactly("mustNotExist -> WRITTEN",
        "mustNotExist -> PRECONDITION_FAILED", "mustNotExist -> PRECONDITION_FAILED", mustMatch(stale) + " -> WRITTEN");
    assertThat(store.log().entries(DatastoreOperation.DELETE)).isEmpty();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(successor.info().nonce());
    assertThat(old.isHeld()).as("a ttl past its last refresh, before any heartbeat").isFalse();
    heartbeats.beat();
    assertThat(old.isHeld()).isFalse();
    assertThat(successor.isHeld()).isTrue();
    old.release();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(successor.info().nonce());
    successor.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void acquire_liveHolder_isNeverStolen() {
    ManualHeartbeats holderBeats = ManualHeartbeats.create();
    DistributedLock.Held held = fixture.peer("ada").heartbeats(holderBeats).build().acquire();
    DistributedLock waiter = fixture.peer("bob").sleeper(fixture.sleeperBeating(holderBeats)).build();

    assertThatThrownBy(waiter::acquire)
        .isInstanceOf(LockTimeoutException.class)
        .hasMessageStartingWith("Cannot acquire lock \"" + KEY.value() + "\": held by ada@host-ada");
    assertThat(clock.slept()).as("twice the ttl: only heartbeats kept the holder fresh").isEqualTo(OPTIONS.maxWait());
    assertThat(waiter.tryAcquire()).isEmpty();

    assertThat(held.isHeld()).isTrue();
    assertThat(fixture.storedHolder()).isEqualTo(held.info().refreshedAt(clock.instant()));
    held.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void release_neverDeletesASuccessorsLock() {
    DistributedLock.Held old = fixture.lockOf("ada").acquire();
    ObjectVersion oldVersion = fixture.storedVersion();
    DistributedLock bob = fixture.lockOf("bob");
    assertThat(bob.tryAcquire()).isEmpty();
    clock.advance(TTL.plusSeconds(1));
    DistributedLock.Held successor = bob.acquire();

    old.release();

    assertThat(old.isHeld()).isFalse();
    assertThat(fixture.logged(DatastoreOperation.DELETE)).containsExactly(mustMatch(oldVersion) + " -> PRECONDITION_FAILED");
    assertThat(fixture.storedHolder().nonce()).isEqualTo(successor.info().nonce());
    heartbeats.beat();
    assertThat(successor.isHeld()).isTrue();
    successor.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void tryAcquire_staleHolder_isTakenOver() {
    DistributedLock.Held old = fixture.lockOf("ada").acquire();
    ObjectVersion stale = fixture.storedVersion();
    DistributedLock bob = fixture.lockOf("bob");
    assertThat(bob.tryAcquire()).as("a fresh holder").isEmpty();
    clock.advance(TTL.plusSeconds(1));

    Optional<DistributedLock.Held> taken = bob.tryAcquire();

    assertThat(taken).isPresent();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).last().isEqualTo(mustMatch(stale) + " -> WRITTEN");
    taken.get().release();
    old.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void isHeld_heartbeatsStopped_turnsFalseNoLaterThanAPeerMayTakeOver() {
    DistributedLock.Held lease = fixture.lockOf("ada").acquire();
    DistributedLock bob = fixture.lockOf("bob");
    assertThat(bob.tryAcquire()).as("bob sees the version as it is written").isEmpty();

    clock.advance(TTL.minusMillis(1));
    assertThat(lease.isHeld()).as("a millisecond inside its ttl, no heartbeat ran").isTrue();
    clock.advance(Duration.ofMillis(1));
    assertThat(lease.isHeld()).as("its only refresh is a ttl old: a peer may take it over a moment later").isFalse();
    assertThat(bob.tryAcquire()).as("bob has seen the version unchanged for exactly the ttl").isEmpty();
    clock.advance(Duration.ofMillis(1));
    DistributedLock.Held successor = bob.tryAcquire().orElseThrow();

    assertThat(lease.isHeld()).isFalse();
    assertThat(successor.isHeld()).isTrue();
    lease.release();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(successor.info().nonce());
    successor.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void takeOver_racingTheStaleHoldersHeartbeat_losesAndLeavesTheHolder() {
    ManualHeartbeats holderBeats = ManualHeartbeats.create();
    DistributedLock.Held holder = fixture.peer("ada").heartbeats(holderBeats).build().acquire();
    DistributedLock bob = fixture.lockOf("bob");
    assertThat(bob.tryAcquire()).as("bob's first sight of ada's version").isEmpty();
    clock.advance(TTL.plusSeconds(1));
    // the holder wakes from its stall between the taker's read and its conditional takeover write
    store.faults().beforeNext(DatastoreOperation.READ, KEY::equals,
        () -> store.faults().beforeNext(DatastoreOperation.WRITE, KEY::equals, holderBeats::beat));

    Optional<DistributedLock.Held> taken = bob.tryAcquire();

    assertThat(taken).isEmpty();
    assertThat(holder.isHeld()).isTrue();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(holder.info().nonce());
    assertThat(fixture.logged(DatastoreOperation.WRITE).get(4)).startsWith("mustMatch(").endsWith(" -> PRECONDITION_FAILED");
    assertThat(store.faults().pendingHooks()).isZero();
    holder.release();
  }

  void takeOver_twoWaitersOnOneStaleVersion_exactlyOneWins() {
    DistributedLock.Held stale = fixture.lockOf("ada").acquire();
    ObjectVersion staleVersion = fixture.storedVersion();
    DistributedLock bob = fixture.lockOf("bob");
    DistributedLock cy = fixture.lockOf("cy");
    assertThat(bob.tryAcquire()).isEmpty();
    assertThat(cy.tryAcquire()).isEmpty();
    clock.advance(TTL.plusSeconds(1));
    List<DistributedLock.Held> cyTook = new ArrayList<>();
    // bob and cy both read the stale version; cy's takeover lands between bob's read and bob's write
    store.faults().beforeNext(DatastoreOperation.READ, KEY::equals,
        () -> store.faults().beforeNext(DatastoreOperation.WRITE, KEY::equals,
            () -> cy.tryAcquire().ifPresent(cyTook::add)));

    Optional<DistributedLock.Held> bobTook = bob.tryAcquire();

    assertThat(bobTook).isEmpty();
    assertThat(cyTook).hasSize(1);
    assertThat(fixture.storedHolder().nonce()).isEqualTo(cyTook.get(0).info().nonce());
    assertThat(fixture.logged(DatastoreOperation.WRITE).stream().filter(w -> w.startsWith(mustMatch(staleVersion))).toList())
        .containsExactly(mustMatch(staleVersion) + " -> WRITTEN", mustMatch(staleVersion) + " -> PRECONDITION_FAILED");
    heartbeats.beat();
    assertThat(stale.isHeld()).isFalse();
    assertThat(cyTook.get(0).isHeld()).isTrue();
    stale.release();
    cyTook.get(0).release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void tryAcquire_unreadableRecord_isTakenOverConditionallyOnceUnchangedForItsTtl() {
    fixture.plant("{\"holder\": \"half-writ");
    DistributedLock lock = fixture.lockOf("ada");

    assertThatThrownBy(lock::inspect)
        .isInstanceOf(LockUnreadableException.class)
        .hasMessageStartingWith("Cannot read lock \"" + KEY.value() + "\": the lock body is not valid JSON")
        .extracting(e -> ((LockUnreadableException) e).code()).isEqualTo("lock_unreadable");
    assertThat(lock.forceRelease("any-nonce")).isFalse();
    assertThat(lock.tryAcquire()).isEmpty();
    clock.advance(TTL);
    assertThat(lock.tryAcquire()).as("unchanged for exactly the ttl").isEmpty();
    clock.advance(Duration.ofMillis(1));
    ObjectVersion unreadable = fixture.storedVersion();
    Optional<DistributedLock.Held> taken = lock.tryAcquire();

    assertThat(taken).isPresent();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).last().isEqualTo(mustMatch(unreadable) + " -> WRITTEN");
    assertThat(store.log().entries(DatastoreOperation.DELETE)).isEmpty();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(taken.get().info().nonce());
    taken.get().release();
  }

  void tryAcquire_unreadableRecordThatKeepsChanging_isNeverTakenOver() {
    DistributedLock lock = fixture.lockOf("ada");
    for (int i = 0; i < 12; i++) {
      fixture.plant("{\"partial\": " + i);
      assertThat(lock.tryAcquire()).as("attempt %d", i).isEmpty();
      clock.advance(BEAT);
    }
    assertThat(store.log().entries(DatastoreOperation.WRITE))
        .allSatisfy(e -> assertThat(e.condition()).isEqualTo("mustNotExist"));
  }
}
