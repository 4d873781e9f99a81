package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.CommitMode;
import dev.tierlock.DistributedLock;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import dev.tierlock.spi.ObjectKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each {@link CommitMode} costs in round trips, and that an optimistic run keeps every
 * guarantee: it never reverts a peer, stays safe beside locked runs, and takes no lease for a
 * change that pins an archive (archives are collected by reachability).
 */
class CommitModeTest {

  private static final ObjectKey LOCK = DistributedLock.globalKey(Namespace.NONE);
  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final String DIGEST = "ab".repeat(32);

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.create();
  private final CountingDatastore counting = CountingDatastore.wrap(remote);
  private final TestClock clock = TestClock.create();

  @AfterEach
  void tearDown() {
    remote.close();
  }

  @Test
  void anOptimisticWarmCommit_costsOneCall() {
    TestCheckout checkout = checkout("c", CommitMode.OPTIMISTIC);
    checkout.put("@s/a", "1.0.0");
    counting.reset();

    TransactionResult result = checkout.put("@s/a", "1.0.1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(counting.counts()).containsEntry(DatastoreOperation.WRITE, 1L);
    assertThat(counting.total()).isEqualTo(1);
    assertThat(remote.peekObject(LOCK)).isEmpty();
  }

  @Test
  void aLockedCommit_costsFourCalls_lockReadWriteUnlock() {
    TestCheckout checkout = checkout("c", CommitMode.LOCKED);
    checkout.put("@s/a", "1.0.0");
    counting.reset();

    checkout.put("@s/a", "1.0.1");

    assertThat(counting.counts()).containsAllEntriesOf(Map.of(DatastoreOperation.WRITE, 2L,
        DatastoreOperation.READ, 1L, DatastoreOperation.DELETE, 1L));
    assertThat(counting.total()).isEqualTo(4);
  }

  /**
   * The lease is released as soon as the write lands: the checkout's cache and pending record are
   * settled after the release, under the checkout lock alone, so the lease is held for the store's
   * calls and the durable record, no longer.
   */
  @Test
  void aLockedCommit_releasesTheLeaseAsSoonAsItsWriteLands_thenSettlesItsOwnFiles() {
    FaultyDatastore faulty = FaultyDatastore.wrap(remote);
    TestCheckout checkout = TestCheckout.builder(faulty, dir.resolve("c"), clock).commitMode(CommitMode.LOCKED).build();
    checkout.put("@s/a", "1.0.0");
    Path cacheRecord = checkout.tierlock().stateDirectory().resolve("lockfile-hydrated.json");
    String before = readString(cacheRecord);
    java.util.List<String> atRelease = new java.util.ArrayList<>();
    faulty.faults().beforeNext(DatastoreOperation.DELETE, LOCK::equals, () -> atRelease.add(readString(cacheRecord)));

    checkout.put("@s/a", "1.0.1");

    assertThat(atRelease).as("the cache still stood for the version before at the release").containsExactly(before);
    assertThat(readString(cacheRecord)).isNotEqualTo(before);
    assertThat(checkout.transaction().pending()).isEmpty();
    assertThat(remote.peekObject(LOCK)).isEmpty();
    assertThat(faulty.faults().pendingHooks()).isZero();
  }

  private static String readString(Path file) {
    try {
      return java.nio.file.Files.readString(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void anOptimisticColdCommit_readsOnceThenWrites() {
    checkout("peer", CommitMode.LOCKED).put("@s/a", "1.0.0");
    TestCheckout cold = checkout("cold", CommitMode.OPTIMISTIC);
    counting.reset();

    cold.put("@s/b", "1.0.0");

    assertThat(counting.counts()).containsAllEntriesOf(Map.of(DatastoreOperation.READ, 1L, DatastoreOperation.WRITE, 1L));
    assertThat(counting.total()).isEqualTo(2);
  }

  @Test
  void anOptimisticCommitAfterAPeerWrote_costsThreeMoreCalls_andWaitsAJitteredRoundTrip() {
    TestCheckout checkout = checkout("c", CommitMode.OPTIMISTIC);
    TestCheckout peer = checkout("peer", CommitMode.OPTIMISTIC);
    checkout.put("@s/a", "1.0.0");
    peer.put("@s/b", "1.0.0");
    counting.reset();
    int sleptBefore = clock.sleeps().size();

    TransactionResult result = checkout.put("@s/a", "1.0.1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    // the refused write, the fetch, a look at the lease (free: it goes on), the write
    assertThat(counting.counts()).containsAllEntriesOf(Map.of(DatastoreOperation.WRITE, 2L, DatastoreOperation.READ, 2L));
    assertThat(counting.total()).isEqualTo(4);
    assertThat(clock.sleeps().subList(sleptBefore, clock.sleeps().size())).hasSize(1)
        .allSatisfy(d -> assertThat(d).isBetween(Duration.ZERO, Duration.ofMillis(1)));
    assertThat(checkout.shared().entries().keySet()).containsExactlyInAnyOrder(name("@s/a"), name("@s/b"));
  }

  @Test
  void anOptimisticRun_neverRevertsAPeersChangeToItsName_itIsAConflict() {
    TestCheckout checkout = checkout("c", CommitMode.OPTIMISTIC);
    TestCheckout peer = checkout("peer", CommitMode.OPTIMISTIC);
    checkout.put("@s/a", "1.0.0");
    peer.transaction().refresh();
    peer.put("@s/a", "2.0.0");

    // this checkout still believes 1.0.0: its change is made on that and must not revert 2.0.0
    assertThatThrownBy(() -> checkout.transaction().run(tx -> {
      tx.put(name("@s/a"), checkout.entry("3.0.0"));
      tx.put(name("@s/other"), checkout.entry("1.0.0"));
    })).isInstanceOf(LockfileConflictException.class).hasMessageContaining("@s/a").hasMessageContaining("2.0.0");

    assertThat(checkout.shared().entry(name("@s/a"))).contains(checkout.entry("2.0.0"));
    assertThat(checkout.shared().entry(name("@s/other"))).contains(checkout.entry("1.0.0"));
  }

  @Test
  void anOptimisticRunThatPinsANewArchive_takesNoLease_itsMarkAndTheLockfile() {
    TestCheckout checkout = checkout("c", CommitMode.OPTIMISTIC);
    checkout.put("@s/a", "1.0.0");
    counting.reset();
    LockfileEntry pinned = LockfileEntry.builder("2.0.0", "2026-01-01T00:00:00.000Z").checksum(DIGEST).build();

    checkout.transaction().run(tx -> tx.put(name("@s/a"), pinned));

    // the archive's mark (for a collection), the lockfile; no lease
    assertThat(counting.counts()).containsEntry(DatastoreOperation.WRITE, 2L);
    assertThat(counting.total()).isEqualTo(2);
    assertThat(checkout.shared().entry(name("@s/a"))).contains(pinned);
    counting.reset();

    // the same archive again pins nothing new: straight on the cached version
    checkout.transaction().run(tx -> tx.put(name("@s/a"), LockfileEntry.builder("2.0.0",
        "2026-02-01T00:00:00.000Z").checksum(DIGEST).build()));

    assertThat(counting.total()).isEqualTo(1);
  }

  @Test
  void aWarmInstall_inEitherModeWithoutTheLease_costsItsArchiveUploadItsMarkTheLockfileAndOneStat() throws Exception {
    for (CommitMode mode : new CommitMode[] {CommitMode.OPTIMISTIC, CommitMode.AUTO}) {
      TestCheckout checkout = checkout("install-" + mode, mode);
      for (int i = 0; i < 8; i++) {
        checkout.put("@s/warm-" + mode.name().toLowerCase(java.util.Locale.ROOT), "1.0." + i);
      }
      ArchiveTransactions archives = ArchiveTransactions.of(checkout.tierlock(), ArchiveLimits.DEFAULTS, clock);
      byte[] bytes = ArchiveFixture.archive("tools " + mode);
      ExtensionArchiveKey key = ArchiveFixture.keyOf("@s/tools-" + mode.name().toLowerCase(java.util.Locale.ROOT), bytes);
      VerifiedArchive verified = archives.verify(key, java.nio.file.Files.write(dir.resolve(mode + ".tar.gz"), bytes));
      counting.reset();

      TransactionResult result = checkout.transaction().run(tx -> archives.install(tx, verified,
          checkout.entry("1.0.0")));

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      // the archive (create-only), its mark, the lockfile; the archive proven present after the publish
      assertThat(counting.counts()).as(mode.name()).containsAllEntriesOf(Map.of(DatastoreOperation.WRITE, 3L,
          DatastoreOperation.STAT, 1L, DatastoreOperation.DELETE, 0L, DatastoreOperation.READ, 0L));
      assertThat(counting.total()).as(mode.name()).isEqualTo(4);
      assertThat(remote.peekObject(LOCK)).isEmpty();
    }
  }

  @Test
  void anOptimisticRun_publishesWhileALockedRunHoldsTheLease_andTheLockedRunRebasesOntoIt() throws Exception {
    TestCheckout locked = checkout("locked", CommitMode.LOCKED);
    TestCheckout optimistic = checkout("optimistic", CommitMode.OPTIMISTIC);
    locked.put("@s/seed", "1.0.0");
    optimistic.transaction().refresh();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CompletableFuture<TransactionResult> lockedRun = CompletableFuture.supplyAsync(() -> locked.transaction().run(tx -> {
      tx.put(name("@s/l"), locked.entry("1.0.0"));
      inside.countDown();
      try {
        go.await();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }));
    assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();

    // the lease is held by the locked run right now: an optimistic run does not wait for it
    assertThat(remote.peekObject(LOCK)).isPresent();
    assertThat(optimistic.put("@s/o", "1.0.0").status()).isEqualTo(TransactionStatus.PUBLISHED);
    go.countDown();

    assertThat(lockedRun.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(locked.shared().entries().keySet()).containsExactlyInAnyOrder(name("@s/seed"), name("@s/l"),
        name("@s/o"));
    assertThat(remote.peekObject(LOCKFILE)).isPresent();
  }

  private TestCheckout checkout(String name, CommitMode mode) {
    return TestCheckout.builder(counting, dir.resolve(name), clock).commitMode(mode).build();
  }

  private static ExtensionName name(String value) {
    return ExtensionName.of(value);
  }
}
