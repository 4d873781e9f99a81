package dev.tierlock.testkit;

import static dev.tierlock.testkit.LockFixture.KEY;
import static dev.tierlock.testkit.LockFixture.OPTIONS;
import static dev.tierlock.testkit.LockFixture.RESERVATION;
import static dev.tierlock.testkit.LockFixture.TTL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.DistributedLock;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.Sleeper;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@link DistributedLockContract} cases about the bounded-wait rule across processes: a waiter
 * that has waited past its bound reserves the next turn and contended peers hold back until it has
 * the lock, even while the lock stands free; a dead reserver holds nobody back for longer than its
 * ttl, whatever its clock said; the uncontended path makes no call for it; and a holder that knows
 * nothing of reservations (the original tool) is still excluded by the lock object alone.
 */
final class LockReservationScenarios {

  private final LockFixture fixture;
  private final FaultyDatastore store;
  private final TestClock clock;

  LockReservationScenarios(LockFixture fixture) {
    this.fixture = fixture;
    this.store = fixture.store();
    this.clock = fixture.clock();
  }

  void acquire_starvedWaiter_reservesTheNextTurn_andContendedPeersHoldBackUntilItHasTheLock() {
    ManualHeartbeats adaBeats = ManualHeartbeats.create();
    DistributedLock.Held ada = fixture.peer("ada").heartbeats(adaBeats).build().acquire();
    DistributedLock cy = fixture.lockOf("cy");
    assertThat(cy.tryAcquire()).as("cy meets the busy lock, and contends from now on").isEmpty();
    Instant start = clock.instant();
    List<Optional<DistributedLock.Held>> cyWhileFree = new ArrayList<>();
    List<Long> keyWritesAtRelease = new ArrayList<>();
    Sleeper advance = clock.sleeper();
    // each of bob's waits: time passes and ada renews, until bob has reserved; then ada releases and
    // cy, polling, finds the lock free
    Sleeper script = d -> {
      advance.sleep(d);
      if (!ada.isHeld()) {
        return;
      }
      if (store.delegate().stat(RESERVATION).isEmpty()) {
        adaBeats.beat();
        return;
      }
      ada.release();
      keyWritesAtRelease.add((long) fixture.logged(DatastoreOperation.WRITE).size());
      cyWhileFree.add(cy.tryAcquire());
    };

    DistributedLock.Held bob = fixture.peer("bob").sleeper(script).nonces(() -> "nonce-bob").build().acquire();

    assertThat(Duration.between(start, clock.instant()))
        .as("bob waited past its bound (64 holds or a second, at most twice the longest retry) before it reserved")
        .isGreaterThan(Duration.ofSeconds(1)).isLessThanOrEqualTo(OPTIONS.maxRetryInterval().multipliedBy(2).plus(OPTIONS.maxRetryInterval()));
    assertThat(cyWhileFree).as("cy held back for bob's reservation while the lock stood free").containsExactly(Optional.empty());
    assertThat(fixture.logged(DatastoreOperation.WRITE)).as("the only create after ada's release was bob's")
        .hasSize(keyWritesAtRelease.get(0).intValue() + 1).last().isEqualTo("mustNotExist -> WRITTEN");
    assertThat(fixture.storedHolder().nonce()).isEqualTo("nonce-bob").isEqualTo(bob.info().nonce());
    assertThat(fixture.logged(DatastoreOperation.WRITE, RESERVATION)).first().isEqualTo("mustNotExist -> WRITTEN");
    assertThat(fixture.logged(DatastoreOperation.DELETE, RESERVATION)).as("used, then removed")
        .singleElement().asString().endsWith(" -> DELETED");
    assertThat(store.delegate().stat(RESERVATION)).isEmpty();
    assertThat(cy.tryAcquire()).as("bob holds the lock itself").isEmpty();
    bob.release();
    DistributedLock.Held cyAfter = cy.tryAcquire().orElseThrow();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(cyAfter.info().nonce());
    cyAfter.release();
    assertThat(fixture.leftovers()).isEmpty();
  }

  void tryAcquire_deadReserver_holdsBackNoLongerThanItsTtl() {
    DistributedLock.Held ada = fixture.lockOf("ada").acquire();
    DistributedLock cy = fixture.lockOf("cy");
    assertThat(cy.tryAcquire()).as("cy meets the busy lock, and contends from now on").isEmpty();
    plantReservation("dan", clock.instant());
    ada.release();
    int keyWrites = fixture.logged(DatastoreOperation.WRITE).size();

    assertThat(cy.tryAcquire()).as("the lock is free, but dan reserved the next turn").isEmpty();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).as("cy held back: no create").hasSize(keyWrites);
    clock.advance(TTL.minusMillis(1));
    assertThat(cy.tryAcquire()).as("a millisecond inside dan's ttl").isEmpty();
    clock.advance(Duration.ofMillis(1));
    DistributedLock.Held taken = cy.tryAcquire().orElseThrow();

    assertThat(fixture.storedHolder().nonce()).isEqualTo(taken.info().nonce());
    assertThat(fixture.logged(DatastoreOperation.DELETE, RESERVATION)).as("the expired reservation is removed conditionally")
        .singleElement().asString().startsWith("mustMatch(").endsWith(" -> DELETED");
    taken.release();
    assertThat(fixture.leftovers()).isEmpty();
  }

  void tryAcquire_deadReserverWhoseClockRanAhead_holdsBackNoLongerThanItsTtlFromFirstSight() {
    DistributedLock.Held ada = fixture.lockOf("ada").acquire();
    DistributedLock cy = fixture.lockOf("cy");
    assertThat(cy.tryAcquire()).isEmpty();
    plantReservation("dan", clock.instant().plus(Duration.ofHours(1)));
    ada.release();

    assertThat(cy.tryAcquire()).as("first sight of a reservation stamped an hour ahead").isEmpty();
    clock.advance(TTL);
    assertThat(cy.tryAcquire()).as("seen unchanged for exactly its ttl").isEmpty();
    clock.advance(Duration.ofMillis(1));
    DistributedLock.Held taken = cy.tryAcquire().orElseThrow();

    assertThat(fixture.storedHolder().nonce()).isEqualTo(taken.info().nonce());
    assertThat(store.delegate().stat(RESERVATION)).isEmpty();
    taken.release();
  }

  void acquireAndRelease_uncontended_areOneCreateAndOneDelete() {
    DistributedLock lock = fixture.lockOf("ada");

    DistributedLock.Held lease = lock.acquire();
    assertThat(store.log().entries()).as("one create-only write, nothing else").singleElement()
        .satisfies(e -> assertThat(e.condition() + " " + e.target()).isEqualTo("mustNotExist " + KEY.value()));
    lease.release();

    assertThat(store.log().entries()).hasSize(2).last()
        .satisfies(e -> assertThat(e.operation()).isEqualTo(DatastoreOperation.DELETE))
        .satisfies(e -> assertThat(e.target()).isEqualTo(KEY.value()));
    assertThat(fixture.leftovers()).isEmpty();
  }

  void acquire_aHolderThatKnowsNothingOfReservations_isStillExcludedByTheLockObject() {
    // the original tool: its own record format, and after each of its holds it creates the lock
    // again at once, paying no heed to the reservation
    plantOriginalHolder("nonce-orig-0");
    int[] holds = {0};
    Sleeper advance = clock.sleeper();
    Sleeper script = d -> {
      advance.sleep(d);
      if (store.delegate().stat(RESERVATION).isPresent()) {
        store.delegate().delete(KEY, WriteCondition.none());
        holds[0]++;
        assertThat(store.delegate().write(KEY, ObjectBody.of(originalRecord("nonce-orig-" + holds[0])),
            WriteCondition.mustNotExist(), ObjectMetadata.EMPTY)).isInstanceOf(dev.tierlock.spi.WriteResult.Written.class);
      } else {
        fixture.plant(new String(originalRecord("nonce-orig-0"), StandardCharsets.UTF_8));
      }
    };
    DistributedLock bob = fixture.peer("bob").sleeper(script).build();

    assertThatThrownBy(bob::acquire)
        .isInstanceOf(LockTimeoutException.class)
        .hasMessageStartingWith("Cannot acquire lock \"" + KEY.value() + "\": held by orig@elsewhere (pid 77");

    assertThat(holds[0]).as("the original tool held on while bob had reserved").isPositive();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).as("bob never wrote the lock")
        .allSatisfy(w -> assertThat(w).isEqualTo("mustNotExist -> PRECONDITION_FAILED"));
    assertThat(fixture.storedHolder().holder()).isEqualTo("orig@elsewhere");
    assertThat(store.delegate().stat(RESERVATION)).as("bob removed its reservation on giving up").isEmpty();
  }

  /** Plants a reservation of waiter {@code name} stamped {@code at}, as a reserver that then died would leave it. */
  private void plantReservation(String name, Instant at) {
    String body = "{\"holder\": \"" + name + "@host-" + name + "\", \"hostname\": \"host-" + name + "\", \"pid\": 9, "
        + "\"acquiredAt\": \"" + at + "\", \"ttlMs\": " + TTL.toMillis() + ", \"nonce\": \"nonce-" + name + "\"}\n";
    store.delegate().write(RESERVATION, ObjectBody.of(body.getBytes(StandardCharsets.UTF_8)), WriteCondition.mustNotExist(),
        ObjectMetadata.EMPTY);
    ReadResult read = store.delegate().read(RESERVATION, ReadCondition.always(), 4096);
    assertThat(read).isInstanceOf(ReadResult.Found.class);
  }

  private void plantOriginalHolder(String nonce) {
    fixture.plant(new String(originalRecord(nonce), StandardCharsets.UTF_8));
  }

  /** The original tool's record: its six fields, no start time, refreshed now. */
  private byte[] originalRecord(String nonce) {
    return ("{\n  \"holder\": \"orig@elsewhere\",\n  \"hostname\": \"elsewhere\",\n  \"pid\": 77,\n  \"acquiredAt\": \""
        + clock.instant() + "\",\n  \"ttlMs\": " + TTL.toMillis() + ",\n  \"nonce\": \"" + nonce + "\"\n}\n")
        .getBytes(StandardCharsets.UTF_8);
  }
}
