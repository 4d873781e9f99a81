package dev.tierlock.testkit;

import static dev.tierlock.testkit.LockFixture.BEAT;
import static dev.tierlock.testkit.LockFixture.KEY;
import static dev.tierlock.testkit.LockFixture.TTL;
import static dev.tierlock.testkit.LockFixture.mustMatch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.DistributedLock;
import dev.tierlock.spi.ObjectVersion;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@link DistributedLockContract} cases about clocks: a live holder whose clock lags the
 * waiter's is never taken over; a crashed holder is taken over once a waiter has itself seen its
 * version unchanged for longer than the ttl, never by the record's own timestamp read against the
 * waiter's clock: not a live holder whose clock lags by any amount, and not a record however old
 * it looks, before the waiter has itself seen it unchanged for a ttl.
 */
final class LockClockSkewScenarios {

  private final LockFixture fixture;
  private final FaultyDatastore store;
  private final TestClock clock;

  LockClockSkewScenarios(LockFixture fixture) {
    this.fixture = fixture;
    this.store = fixture.store();
    this.clock = fixture.clock();
  }

  void acquire_liveHolderWhoseClockLagsByMostOfATtl_isNeverTakenOver() {
    ManualHeartbeats holderBeats = ManualHeartbeats.create();
    Clock lagging = Clock.offset(clock, TTL.multipliedBy(9).dividedBy(10).negated());
    DistributedLock.Held held = fixture.peer("ada").clock(lagging).heartbeats(holderBeats).build().acquire();
    DistributedLock waiter = fixture.lockOf("bob");

    for (int beat = 0; beat < 12; beat++) {
      clock.advance(BEAT);
      // looked at just before the heartbeat: the record is 0.9 ttl + ttl/3 old by the waiter's clock
      assertThat(waiter.tryAcquire()).as("look %d", beat).isEmpty();
      holderBeats.beat();
      assertThat(held.isHeld()).as("beat %d", beat).isTrue();
    }

    assertThat(fixture.storedHolder()).isEqualTo(held.info().refreshedAt(lagging.instant()));
    assertThat(store.log().entries(DatastoreOperation.WRITE))
        .as("the twelve heartbeats are the only conditional writes: no takeover was tried")
        .filteredOn(e -> !e.condition().equals("mustNotExist")).hasSize(12);
    held.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void acquire_liveHolderWhoseClockLagsTheWaitersByOverTwiceItsTtl_isNeverTakenOver() {
    ManualHeartbeats holderBeats = ManualHeartbeats.create();
    DistributedLock.Held held = fixture.peer("ada").heartbeats(holderBeats).build().acquire();
    // bob's clock runs 61 s ahead of ada's: her fresh record is "over twice its ttl old" by his clock
    Clock ahead = Clock.offset(clock, TTL.multipliedBy(2).plusSeconds(1));
    DistributedLock bob = fixture.peer("bob").clock(ahead).build();

    assertThat(bob.tryAcquire()).as("first sight of a record written a moment ago by ada's clock").isEmpty();
    for (int beat = 0; beat < 12; beat++) {
      clock.advance(BEAT);
      holderBeats.beat();
      assertThat(bob.tryAcquire()).as("look %d, after ada's heartbeat", beat).isEmpty();
      assertThat(held.isHeld()).as("beat %d", beat).isTrue();
    }

    assertThat(fixture.storedHolder().nonce()).isEqualTo(held.info().nonce());
    assertThat(store.log().entries(DatastoreOperation.WRITE))
        .as("the twelve heartbeats are the only conditional writes: no takeover was tried")
        .filteredOn(e -> !e.condition().equals("mustNotExist")).hasSize(12);
    held.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void tryAcquire_crashedHolder_isTakenOverOnceTheWaiterSawItsVersionUnchangedForATtl() {
    DistributedLock.Held crashed = fixture.peer("ada").heartbeats(ManualHeartbeats.create()).build().acquire();
    ObjectVersion stale = fixture.storedVersion();
    clock.advance(BEAT);
    DistributedLock waiter = fixture.lockOf("bob");

    assertThat(waiter.tryAcquire()).as("first sight, the record a third of a ttl old").isEmpty();
    clock.advance(TTL);
    assertThat(waiter.tryAcquire()).as("seen unchanged for exactly the ttl, the record under twice its ttl old").isEmpty();
    clock.advance(Duration.ofMillis(1));
    Optional<DistributedLock.Held> taken = waiter.tryAcquire();

    assertThat(taken).isPresent();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).last().isEqualTo(mustMatch(stale) + " -> WRITTEN");
    assertThat(fixture.storedHolder().nonce()).isEqualTo(taken.get().info().nonce());
    assertThat(crashed.isHeld()).isFalse();
    crashed.release();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(taken.get().info().nonce());
    taken.get().release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void tryAcquire_recordOldByTheWaitersClock_isTakenOverOnlyOnceTheWaiterSawItUnchangedForATtl() {
    DistributedLock.Held crashed = fixture.peer("ada").heartbeats(ManualHeartbeats.create()).build().acquire();
    ObjectVersion stale = fixture.storedVersion();
    clock.advance(TTL.multipliedBy(10));
    DistributedLock bob = fixture.lockOf("bob");

    assertThat(bob.tryAcquire()).as("first sight of a record ten ttls old by bob's clock: its stamp is ada's clock")
        .isEmpty();
    clock.advance(TTL);
    assertThat(bob.tryAcquire()).as("seen unchanged for exactly the ttl").isEmpty();
    clock.advance(Duration.ofMillis(1));
    DistributedLock.Held successor = bob.tryAcquire().orElseThrow();

    assertThat(fixture.logged(DatastoreOperation.WRITE)).last().isEqualTo(mustMatch(stale) + " -> WRITTEN");
    assertThat(fixture.storedHolder().nonce()).isEqualTo(successor.info().nonce());
    crashed.release();
    successor.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }
}
