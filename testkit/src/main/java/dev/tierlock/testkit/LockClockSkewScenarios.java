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
 * version unchanged for longer than the ttl; a record more than twice its ttl old is taken over at
 * first sight.
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

  void acquire_recordOlderThanTwiceItsTtl_isTakenOverAtFirstSight() {
    DistributedLock.Held crashed = fixture.peer("ada").heartbeats(ManualHeartbeats.create()).build().acquire();
    ObjectVersion stale = fixture.storedVersion();
    clock.advance(TTL.multipliedBy(2));
    assertThat(fixture.lockOf("cy").tryAcquire()).as("first sight of a record exactly twice its ttl old").isEmpty();
    clock.advance(Duration.ofMillis(1));

    DistributedLock.Held successor = fixture.lockOf("bob").acquire();

    assertThat(clock.sleeps()).as("no wait: the record's own timestamp is stale").isEmpty();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).last().isEqualTo(mustMatch(stale) + " -> WRITTEN");
    assertThat(fixture.storedHolder().nonce()).isEqualTo(successor.info().nonce());
    crashed.release();
    successor.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }
}
