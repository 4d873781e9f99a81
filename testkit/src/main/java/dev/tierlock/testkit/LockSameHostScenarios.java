package dev.tierlock.testkit;

import static dev.tierlock.testkit.LockFixture.BEAT;
import static dev.tierlock.testkit.LockFixture.KEY;
import static dev.tierlock.testkit.LockFixture.PROCESS_START;
import static dev.tierlock.testkit.LockFixture.TTL;
import static dev.tierlock.testkit.LockFixture.mustMatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.DistributedLock;
import dev.tierlock.LockInfo;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.spi.ObjectVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@link DistributedLockContract} cases about a holder on the waiter's own host: one whose
 * process is gone, or whose pid now names a process that started at another time, is taken over at
 * once by a write conditional on the version read (two takers never both win); a live one is not;
 * a record without a start time or a pid namespace, a holder in another pid namespace of this host
 * (a container sharing its name), and a holder on another host, wait out the ttl. Each
 * host is a {@link HostTable}, so every judgement is deterministic.
 */
final class LockSameHostScenarios {

  private static final String HOST = "shared-host";
  private static final long ADA = 101;
  private static final long BOB = 102;
  private static final long CY = 103;

  private final LockFixture fixture;
  private final FaultyDatastore store;
  private final TestClock clock;
  private final HostTable host = HostTable.of(HOST).run(ADA, PROCESS_START).run(BOB, PROCESS_START).run(CY, PROCESS_START);

  LockSameHostScenarios(LockFixture fixture) {
    this.fixture = fixture;
    this.store = fixture.store();
    this.clock = fixture.clock();
  }

  void acquire_sameHostHolderWhoseProcessIsGone_isTakenOverAtOnce() {
    ManualHeartbeats adaBeats = ManualHeartbeats.create();
    DistributedLock.Held ada = fixture.peerOn("ada", host, ADA).heartbeats(adaBeats).build().acquire();
    ObjectVersion held = fixture.storedVersion();
    assertThat(fixture.storedHolder().processStart()).as("the record pins ada's process").contains(PROCESS_START);
    DistributedLock bob = fixture.peerOn("bob", host, BOB).build();
    assertThat(bob.tryAcquire()).as("ada's process runs").isEmpty();

    host.end(ADA);
    DistributedLock.Held successor = bob.acquire();

    assertThat(clock.sleeps()).as("no wait: the holder's process is gone").isEmpty();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).containsExactly("mustNotExist -> WRITTEN",
        "mustNotExist -> PRECONDITION_FAILED", "mustNotExist -> PRECONDITION_FAILED", mustMatch(held) + " -> WRITTEN");
    assertThat(fixture.storedHolder().nonce()).isEqualTo(successor.info().nonce());
    adaBeats.beat();
    assertThat(ada.isHeld()).as("the old lease learns that it lost").isFalse();
    ada.release();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(successor.info().nonce());
    successor.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void acquire_sameHostHolderWhosePidWasReused_isTakenOverAtOnce() {
    DistributedLock.Held ada = fixture.peerOn("ada", host, ADA).heartbeats(ManualHeartbeats.create()).build().acquire();
    ObjectVersion held = fixture.storedVersion();
    DistributedLock bob = fixture.peerOn("bob", host, BOB).build();
    host.run(ADA, PROCESS_START.plus(Duration.ofMillis(900)));
    assertThat(bob.tryAcquire()).as("a start 0.9 s off is the same process, read twice").isEmpty();

    host.run(ADA, PROCESS_START.plus(Duration.ofMinutes(5)));
    DistributedLock.Held successor = bob.acquire();

    assertThat(clock.sleeps()).as("no wait: pid %d is another process now", ADA).isEmpty();
    assertThat(fixture.logged(DatastoreOperation.WRITE)).last().isEqualTo(mustMatch(held) + " -> WRITTEN");
    assertThat(fixture.storedHolder().nonce()).isEqualTo(successor.info().nonce());
    ada.release();
    successor.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void acquire_liveSameHostHolder_isNotTakenOver() {
    ManualHeartbeats adaBeats = ManualHeartbeats.create();
    DistributedLock.Held ada = fixture.peerOn("ada", host, ADA).heartbeats(adaBeats).build().acquire();
    DistributedLock bob = fixture.peerOn("bob", host, BOB).sleeper(fixture.sleeperBeating(adaBeats)).build();

    assertThatThrownBy(bob::acquire)
        .isInstanceOf(LockTimeoutException.class)
        .hasMessageStartingWith("Cannot acquire lock \"" + KEY.value() + "\": held by ada@" + HOST + " (pid " + ADA);

    assertThat(ada.isHeld()).isTrue();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(ada.info().nonce());
    assertThat(fixture.logged(DatastoreOperation.WRITE)).filteredOn(w -> !w.startsWith("mustNotExist"))
        .as("the only conditional writes are ada's heartbeats, one after each of bob's waits: bob tried no takeover")
        .hasSize(clock.sleeps().size()).allSatisfy(w -> assertThat(w).endsWith(" -> WRITTEN"));
    ada.release();
  }

  void tryAcquire_sameHostRecordWithoutAStartTime_waitsOutItsTtl() {
    // the original tool's record (no start time), naming a pid that runs nowhere on this host
    fixture.plant("{\"holder\": \"old@" + HOST + "\", \"hostname\": \"" + HOST + "\", \"pid\": 4242, \"acquiredAt\": \""
        + clock.instant() + "\", \"ttlMs\": " + TTL.toMillis() + ", \"nonce\": \"nonce-old\"}\n");
    DistributedLock bob = fixture.peerOn("bob", host, BOB).build();

    assertThat(bob.tryAcquire()).as("a pid alone cannot tell a made-up or reused id").isEmpty();
    clock.advance(TTL);
    assertThat(bob.tryAcquire()).as("unchanged for exactly the ttl").isEmpty();
    clock.advance(Duration.ofMillis(1));
    DistributedLock.Held taken = bob.tryAcquire().orElseThrow();

    assertThat(fixture.storedHolder().nonce()).isEqualTo(taken.info().nonce());
    taken.release();
  }

  void tryAcquire_liveHolderInAnotherPidNamespaceOfThisHost_waitsOutItsTtl() {
    // ada runs in another container that shares this host's name: her pid 101 names another
    // process in bob's namespace (one that started at another time), or none
    HostTable container = host.otherPidNamespace("pid:[4026532999]").run(ADA, PROCESS_START);
    ManualHeartbeats adaBeats = ManualHeartbeats.create();
    DistributedLock.Held ada = fixture.peerOn("ada", container, ADA).heartbeats(adaBeats).build().acquire();
    assertThat(fixture.storedHolder().processNamespace()).as("her record names her namespace")
        .contains(new LockInfo.ProcessNamespace(HostTable.BOOT, "pid:[4026532999]"));
    DistributedLock bob = fixture.peerOn("bob", host, BOB).build();

    host.run(ADA, PROCESS_START.plus(Duration.ofMinutes(5)));
    assertThat(bob.tryAcquire()).as("pid %d of bob's namespace is another process: it says nothing of ada's", ADA)
        .isEmpty();
    host.end(ADA);
    assertThat(bob.tryAcquire()).as("no pid %d in bob's namespace: it says nothing of ada's", ADA).isEmpty();
    for (int beat = 0; beat < 6; beat++) {
      clock.advance(BEAT);
      adaBeats.beat();
      assertThat(bob.tryAcquire()).as("ada renews (beat %d)", beat).isEmpty();
    }
    assertThat(ada.isHeld()).isTrue();
    assertThat(fixture.storedHolder().nonce()).isEqualTo(ada.info().nonce());

    clock.advance(TTL.plusMillis(1));
    DistributedLock.Held taken = bob.tryAcquire().orElseThrow();
    assertThat(ada.isHeld()).as("once ada stops renewing, her record is stale by bob's own watch").isFalse();
    ada.release();
    taken.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void tryAcquire_sameHostRecordWithAStartTimeButNoNamespace_waitsOutItsTtl() {
    // an older Tierlock's record: host, pid and start time, but not which boot and pid namespace
    fixture.plant("{\"holder\": \"old@" + HOST + "\", \"hostname\": \"" + HOST + "\", \"pid\": " + ADA
        + ", \"acquiredAt\": \"" + clock.instant() + "\", \"ttlMs\": " + TTL.toMillis()
        + ", \"nonce\": \"nonce-old\", \"processStartedAt\": \"" + PROCESS_START + "\"}\n");
    host.end(ADA);
    DistributedLock bob = fixture.peerOn("bob", host, BOB).build();
    DistributedLock blind = fixture.peerOn("cy", host.namespaceUnknown(), CY).build();

    assertThat(bob.tryAcquire()).as("the record does not say which pid namespace pid %d is of", ADA).isEmpty();
    assertThat(blind.tryAcquire()).as("a waiter that cannot tell its own namespace").isEmpty();
    clock.advance(TTL);
    assertThat(bob.tryAcquire()).as("unchanged for exactly the ttl").isEmpty();
    clock.advance(Duration.ofMillis(1));
    DistributedLock.Held taken = bob.tryAcquire().orElseThrow();

    assertThat(fixture.storedHolder().nonce()).isEqualTo(taken.info().nonce());
    taken.release();
  }

  void tryAcquire_holderOnAnotherHost_waitsOutItsTtl() {
    HostTable other = HostTable.of("other-host").run(ADA, PROCESS_START);
    DistributedLock.Held ada = fixture.peerOn("ada", other, ADA).heartbeats(ManualHeartbeats.create()).build().acquire();
    host.end(ADA);
    DistributedLock bob = fixture.peerOn("bob", host, BOB).build();

    assertThat(bob.tryAcquire()).as("pid %d runs nowhere here, but ada is on another host", ADA).isEmpty();
    clock.advance(TTL);
    assertThat(bob.tryAcquire()).isEmpty();
    clock.advance(Duration.ofMillis(1));
    DistributedLock.Held taken = bob.tryAcquire().orElseThrow();

    assertThat(fixture.storedHolder().nonce()).isEqualTo(taken.info().nonce());
    assertThat(ada.isHeld()).isFalse();
    ada.release();
    taken.release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }

  void takeOver_twoSameHostWaitersOfADeadHolder_exactlyOneWins() {
    DistributedLock.Held ada = fixture.peerOn("ada", host, ADA).heartbeats(ManualHeartbeats.create()).build().acquire();
    ObjectVersion dead = fixture.storedVersion();
    host.end(ADA);
    DistributedLock cy = fixture.peerOn("cy", host, CY).build();
    List<DistributedLock.Held> cyTook = new ArrayList<>();
    // bob and cy both read the dead holder's version; cy's takeover lands between bob's read and bob's write
    store.faults().beforeNext(DatastoreOperation.READ, KEY::equals,
        () -> store.faults().beforeNext(DatastoreOperation.WRITE, KEY::equals,
            () -> cy.tryAcquire().ifPresent(cyTook::add)));

    Optional<DistributedLock.Held> bob = fixture.peerOn("bob", host, BOB).build().tryAcquire();

    assertThat(bob).isEmpty();
    assertThat(cyTook).hasSize(1);
    assertThat(fixture.storedHolder().nonce()).isEqualTo(cyTook.get(0).info().nonce());
    assertThat(fixture.logged(DatastoreOperation.WRITE).stream().filter(w -> w.startsWith(mustMatch(dead))).toList())
        .containsExactly(mustMatch(dead) + " -> WRITTEN", mustMatch(dead) + " -> PRECONDITION_FAILED");
    ada.release();
    cyTook.get(0).release();
    assertThat(store.delegate().stat(KEY)).isEmpty();
  }
}
