package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockOptions;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The lockfile-transaction contract for what goes wrong mid-run: a write whose answer is lost while
 * its holder stalls past the lease and a peer publishes; a process that dies before or after its
 * write lands, or before or after the archive its change installs lands; a second run on the same checkout while the first one stalls; a change that uses up
 * the whole deadline. The rule throughout: an acknowledged change of a peer is never reverted, and
 * a change is re-applied only when its write provably did not land, and an entry never lands
 * without the archive it pins.
 */
abstract class LockfileTransactionRecoveryContract extends LockfileTransactionBasicsContract {

  /** What a test throws from a fault hook to play a process that dies at that point. */
  static final class Crash extends Error {
    private static final long serialVersionUID = 1L;

    Crash() {
      super("the process died here");
    }
  }

  private static byte[] bytesOf(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void stallPastTheLease() {
    clock().advance(LockOptions.DEFAULTS.ttl().plusSeconds(1));
  }

  @Test
  final void aLostResponse_thenAPeerRemovalWhileStalled_keepsThePeersRemoval() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.LOSE_RESPONSE);
    store().faults().beforeNext(DatastoreOperation.STAT, isLockfile(), () -> {
      stallPastTheLease();
      assertThat(b.remove("@s/x").status()).isEqualTo(TransactionStatus.PUBLISHED);
    });

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).as("a's write landed: b's version is built on it").isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(shared().contains(name("@s/x"))).as("b's acknowledged removal").isFalse();
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
    a.transaction().refresh();
    assertThat(a.local().contains(name("@s/x"))).isFalse();
  }

  @Test
  final void anUnansweredWriteThatDidNotLand_thenAPeerPublishWhileStalled_isAnUnknownOutcome() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    a.put("@s/x", "1");
    store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, Fault.TIMEOUT_BEFORE_APPLY);
    store().faults().beforeNext(DatastoreOperation.STAT, isLockfile(), () -> {
      stallPastTheLease();
      b.put("@s/peer", "1");
    });

    assertThatThrownBy(() -> a.put("@s/x", "2"))
        .isInstanceOf(LockfileOutcomeUnknownException.class)
        .hasMessageStartingWith("Cannot confirm lockfile change to " + a.transaction().describe() + ": the write of commit ")
        .hasMessageContaining("without that commit in its lineage; the change (set @s/x 2) may or may not be in it")
        .hasMessageContaining("it is not retried, so that no other checkout's change is reverted")
        .extracting(e -> ((LockfileOutcomeUnknownException) e).code()).isEqualTo("lockfile_outcome_unknown");
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"), entry("@s/peer", "1"));
    assertThat(a.tierlock().pendingChanges().read()).as("nothing of it may be replayed").isEqualTo(PendingChange.None.INSTANCE);
    assertThat(a.transaction().refresh().status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"), entry("@s/peer", "1"));
  }

  @Test
  final void aCrashAfterTheWriteLanded_isNotReplayedOverALaterPeerChange() throws IOException {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    Path record = a.tierlock().pendingChanges().path();
    AtomicReference<byte[]> atTheWrite = new AtomicReference<>();
    store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> atTheWrite.set(bytesOf(record)));
    a.put("@s/x", "1");
    Files.write(record, atTheWrite.get());
    assertThat(a.tierlock().pendingChanges().read()).as("the record a process that died after the write leaves")
        .isInstanceOfSatisfying(PendingChange.Recorded.class, r -> assertThat(r.attempt()).isPresent());
    b.remove("@s/x");

    TransactionResult replay = a.transaction().refresh();

    assertThat(replay.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(replay.warnings()).isEmpty();
    assertThat(shared().contains(name("@s/x"))).as("b's acknowledged removal").isFalse();
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void aRecordWrittenAheadOfAChangeThatWasPublished_replaysNothing() throws IOException {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    Path record = a.tierlock().pendingChanges().path();
    AtomicReference<byte[]> ahead = new AtomicReference<>();
    a.transaction().run(tx -> {
      tx.repository().writeEntry(name("@s/x"), entryOf("1"));
      ahead.set(bytesOf(record));
    });
    Files.write(record, ahead.get());
    b.remove("@s/x");

    TransactionResult replay = a.transaction().refresh();

    assertThat(replay.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(shared().contains(name("@s/x"))).as("b's acknowledged removal").isFalse();
  }

  @Test
  final void aCrashBeforeTheWriteWasSent_isReplayedByTheRestartedCheckout() {
    TestCheckout a = checkout("a");
    a.put("@s/x", "1");
    store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      throw new Crash();
    });
    assertThatThrownBy(() -> a.put("@s/y", "1")).isInstanceOf(Crash.class);
    TestCheckout restarted = checkout("a");

    TransactionResult replay = restarted.transaction().refresh();

    assertThat(replay.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"), entry("@s/y", "1"));
    assertThat(restarted.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void aCrashBeforeTheWriteWasSent_thenAPeerPublish_dropsTheUnprovableChangeWithAWarning() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    a.put("@s/x", "1");
    store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      throw new Crash();
    });
    assertThatThrownBy(() -> a.put("@s/x", "2")).isInstanceOf(Crash.class);
    b.put("@s/peer", "1");
    TestCheckout restarted = checkout("a");

    TransactionResult replay = restarted.transaction().refresh();

    assertThat(replay.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(replay.warnings()).singleElement().asString()
        .startsWith("Dropped the unpublished change to @s/x (this transaction: ")
        .contains("went unanswered and the shared lockfile has moved on without it in its lineage");
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"), entry("@s/peer", "1"));
    assertThat(restarted.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  final void aCrashBeforeItsArchiveLanded_leavesNoEntryToReplay() throws IOException {
    TestCheckout a = checkout("a");
    ArchiveTransactions archives = ArchiveTransactions.of(a.tierlock());
    byte[] bytes = ArchiveStoreContractSupport.archive("crash before the upload");
    ExtensionArchiveKey key = ArchiveStoreContractSupport.keyOf("@s/x", bytes);
    VerifiedArchive verified = archives.verify(key, Files.write(temp.resolve("x.tar.gz"), bytes));
    store().faults().beforeNext(DatastoreOperation.WRITE, NAMESPACE.key(key.tierPath())::equals, () -> {
      throw new Crash();
    });
    assertThatThrownBy(() -> a.transaction().run(tx -> archives.install(tx, verified, entryOf("1"))))
        .isInstanceOf(Crash.class);
    TestCheckout restarted = checkout("a");

    TransactionResult replay = restarted.transaction().refresh();

    assertThat(replay.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(shared().contains(name("@s/x"))).isFalse();
    assertThat(store().delegate().stat(NAMESPACE.key(key.tierPath()))).isEmpty();
  }

  @Test
  final void aCrashAfterItsArchiveLanded_replaysTheEntryThatPinsIt() throws IOException {
    TestCheckout a = checkout("a");
    ArchiveTransactions archives = ArchiveTransactions.of(a.tierlock());
    byte[] bytes = ArchiveStoreContractSupport.archive("crash before the lockfile");
    ExtensionArchiveKey key = ArchiveStoreContractSupport.keyOf("@s/x", bytes);
    VerifiedArchive verified = archives.verify(key, Files.write(temp.resolve("x.tar.gz"), bytes));
    store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      throw new Crash();
    });
    assertThatThrownBy(() -> a.transaction().run(tx -> archives.install(tx, verified, entryOf("1"))))
        .isInstanceOf(Crash.class);
    TestCheckout restarted = checkout("a");

    TransactionResult replay = restarted.transaction().refresh();

    assertThat(replay.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(shared().entry(name("@s/x")).flatMap(e -> e.checksum())).contains(key.sha256());
    assertThat(store().delegate().stat(NAMESPACE.key(key.tierPath()))).isPresent();
  }

  /**
   * Two processes on one checkout: a stalls past its lease, b's refresh starts meanwhile. Without
   * the checkout's transaction lock b would read "nothing pending" before a records its change,
   * then replace the cache a's change is in, and a would find nothing to publish.
   */
  @Test
  final void aRefreshOnTheSameCheckout_waitsForAStalledHolder_andSeesItsChange() throws InterruptedException {
    TestCheckout a = checkout("shared");
    TestCheckout b = register(checkoutBuilder("shared").build());
    CountDownLatch aWrote = new CountDownLatch(1);
    AtomicBoolean bFetching = new AtomicBoolean();
    AtomicReference<Object> bEnded = new AtomicReference<>();
    Thread bRun = new Thread(() -> {
      try {
        bEnded.set(b.transaction().refresh());
      } catch (RuntimeException | Error e) {
        bEnded.set(e);
      }
    }, "second run on the same checkout");
    store().faults().beforeNext(DatastoreOperation.READ, isLockfile(), () -> {
      store().faults().beforeNext(DatastoreOperation.READ, isLockfile(), () -> {
        bFetching.set(true);
        await(aWrote);
      });
      stallPastTheLease();
      bRun.start();
      awaitUntil(() -> isWaiting(bRun) || bRun.getState() == Thread.State.TERMINATED);
    });

    TransactionResult result = a.transaction().run(tx -> {
      tx.repository().writeEntry(name("@s/x"), entryOf("1"));
      aWrote.countDown();
      awaitUntil(() -> bRun.getState() == Thread.State.TERMINATED || (!bFetching.get() && isWaiting(bRun)));
    });
    bRun.join(TimeUnit.SECONDS.toMillis(10));

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"));
    assertThat(bEnded.get()).isInstanceOfSatisfying(TransactionResult.class,
        r -> assertThat(r.status()).isEqualTo(TransactionStatus.NO_CHANGE));
    assertThat(versions(b.local())).containsExactly(entry("@s/x", "1"));
    assertThat(a.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  private static boolean isWaiting(Thread thread) {
    Thread.State state = thread.getState();
    return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
  }

  /** Waits, at most 10 s, until {@code condition} holds (a run's thread waits for real only on a lock or a latch). */
  private static void awaitUntil(BooleanSupplier condition) {
    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - giveUp > 0) {
        throw new IllegalStateException("Cannot go on: the other run did not get there within 10 s");
      }
      Thread.onSpinWait();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("Cannot go on: the other run did not get there within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  final void aCheckoutLockedByAnotherProcess_timesTheRunOutNamingTheLock() throws Exception {
    TestCheckout a = register(checkoutBuilder("a").transactionDeadline(Duration.ofSeconds(5)).build());
    Path lockFile = a.tierlock().stateDirectory().resolve("transaction.lock");
    try (ChildLockHolder child = ChildLockHolder.start(lockFile, "another process's run")) {
      String heldBy = "transaction.lock\": held by pid " + child.pid() + " on host ";
      assertThatThrownBy(() -> a.put("@s/x", "1"))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageStartingWith("Cannot acquire lock \"")
          .hasMessageContaining(heldBy)
          .hasMessageContaining("; guards another process's run)")
          .extracting(e -> ((LockTimeoutException) e).code()).isEqualTo("lock_timeout");
      assertThatThrownBy(() -> a.transaction().refresh())
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining(heldBy);
      assertThat(shared().isEmpty()).as("nothing was published while the other process held the checkout").isTrue();
      child.release();
    }
    assertThat(a.put("@s/x", "1").status()).as("the global lock was released").isEqualTo(TransactionStatus.PUBLISHED);
  }

  @Test
  final void aChangeThatUsesUpTheDeadline_isStillPublished() {
    TestCheckout a = checkout("a");

    TransactionResult result = a.transaction().run(tx -> {
      tx.repository().writeEntry(name("@s/x"), entryOf("1"));
      clock().advance(Duration.ofSeconds(121));
    });

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(versions(shared())).containsExactly(entry("@s/x", "1"));
  }

  @Test
  final void aConflictAfterTheDeadline_failsNamingTheRealReason_andKeepsTheChange() {
    TestCheckout a = checkout("a");
    TestCheckout b = checkout("b");
    store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> b.put("@s/peer", "1"));

    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.repository().writeEntry(name("@s/x"), entryOf("1"));
      clock().advance(Duration.ofSeconds(121));
    }))
        .isInstanceOf(ManagedConfigUnpublishedException.class)
        .hasMessageContaining("(1 attempt): the shared lockfile changed before the publish attempt, and the"
            + " transaction deadline has passed; the change (set @s/x 1) is saved locally");
    assertThat(a.transaction().refresh().status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(shared())).containsOnly(entry("@s/peer", "1"), entry("@s/x", "1"));
  }
}
