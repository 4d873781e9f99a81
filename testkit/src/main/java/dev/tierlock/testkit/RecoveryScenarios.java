package dev.tierlock.testkit;

import static dev.tierlock.testkit.PendingScenarios.recordOf;
import static dev.tierlock.testkit.TransactionFixture.GLOBAL_LOCK_KEY;
import static dev.tierlock.testkit.TransactionFixture.NAMESPACE;
import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockTimeoutException;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Crash recovery, for {@link LockfileTransactionContract}: a process that dies at any point of a
 * run (inside its change, before its write, after its write landed, around the archive its change
 * installs) leaves what its restarted checkout needs, and the restart re-applies a change only when
 * its write provably did not land, never over a peer's later change; two processes or instances on
 * one checkout never interleave. A dying process is a checkout on a {@link MortalDatastore}: after
 * it dies nothing more of it reaches the store, so its global lease stays behind. Not thread-safe:
 * one per test.
 */
final class RecoveryScenarios {

  private final TransactionFixture f;

  RecoveryScenarios(TransactionFixture fixture) {
    this.f = fixture;
  }

  void aCrashInsideTheChange_leavesNothing_andTheRestartedCheckoutPublishesNothing() {
    MortalDatastore process = new MortalDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", process).build());
    a.put("@s/x", "1");

    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.put(name("@s/y"), f.entry("1"));
      throw process.die();
    })).isInstanceOf(MortalDatastore.Crash.class);
    TestCheckout restarted = restart("a");

    assertThat(restarted.transaction().pending()).isEmpty();
    assertThat(restarted.transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"));
  }

  void aCrashBeforeTheWriteWasSent_isPublishedByTheRestartedCheckout() {
    MortalDatastore process = new MortalDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", process).build());
    a.put("@s/x", "1");
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      throw process.die();
    });

    assertThatThrownBy(() -> a.put("@s/y", "1")).isInstanceOf(MortalDatastore.Crash.class);
    assertThat(f.storedKeys()).as("the dead process's lease stays behind").contains(GLOBAL_LOCK_KEY.value());
    TestCheckout restarted = restart("a");
    assertThat(restarted.transaction().pending()).hasValueSatisfying(p -> {
      assertThat(p.state()).isEqualTo(PendingChange.State.IN_FLIGHT);
      assertThat(p.delta().names()).containsExactly(name("@s/y"));
    });

    TransactionResult replay = restarted.transaction().run(tx -> { });

    assertThat(replay.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(replay.delta().names()).containsExactly(name("@s/y"));
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"), entry("@s/y", "1"));
    assertThat(restarted.transaction().pending()).isEmpty();
  }

  void aCrashBeforeTheWriteWasSent_thenAPeerChangedOneOfItsEntries_keepsThePeersValue_andPublishesTheRest() {
    MortalDatastore process = new MortalDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", process).build());
    TestCheckout b = f.checkout("b");
    a.put("@s/x", "1");
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      throw process.die();
    });
    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.put(name("@s/x"), f.entry("2"));
      tx.put(name("@s/y"), f.entry("2"));
    })).isInstanceOf(MortalDatastore.Crash.class);
    assertThat(b.put("@s/x", "3").status()).isEqualTo(TransactionStatus.PUBLISHED);
    TestCheckout restarted = restart("a");

    TransactionResult replay = restarted.transaction().run(tx -> { });

    assertThat(replay.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(replay.delta().names()).containsExactly(name("@s/y"));
    assertThat(replay.warnings()).singleElement().asString()
        .startsWith("Dropped the unpublished change to @s/x (this transaction: ")
        .endsWith("): another checkout changed it since");
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "3"), entry("@s/y", "2"));
  }

  void aRunThatDroppedAPendingEntryAndDied_leavesTheNextRunToTellIt() {
    MortalDatastore process = new MortalDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", process).build());
    TestCheckout b = f.checkout("b");
    b.put("@s/x", "1");
    f.failLockfileWrites();
    assertThatThrownBy(() -> a.transaction().run(tx -> tx.put(name("@s/x"), f.entry("2"))))
        .isInstanceOf(ManagedConfigUnpublishedException.class);
    f.store().faults().clear();
    assertThat(b.put("@s/x", "3").status()).isEqualTo(TransactionStatus.PUBLISHED);
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      throw process.die();
    });
    assertThatThrownBy(() -> a.transaction().run(tx -> tx.put(name("@s/y"), f.entry("1"))))
        .as("the run drops @s/x for the peer's newer value, records the rest, and dies before it can say so")
        .isInstanceOf(MortalDatastore.Crash.class);
    TestCheckout restarted = restart("a");

    TransactionResult next = restarted.transaction().run(tx -> { });

    assertThat(next.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(next.warnings()).singleElement().asString()
        .startsWith("Dropped the unpublished change to @s/x (this transaction: ")
        .endsWith("): another checkout changed it since");
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "3"), entry("@s/y", "1"));
    assertThat(restarted.transaction().run(tx -> { }).warnings()).as("told once").isEmpty();
  }

  void aCrashBetweenThePublishAndClearingTheRecord_isSettledAsLanded_andNeverRevertsALaterPeer() {
    MortalDatastore process = new MortalDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", process).build());
    TestCheckout b = f.checkout("b");
    f.store().faults().afterNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      throw process.die();
    });
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(MortalDatastore.Crash.class);
    assertThat(versions(f.shared())).as("the write landed").containsExactly(entry("@s/x", "1"));
    assertThat(b.remove("@s/x").status()).isEqualTo(TransactionStatus.PUBLISHED);
    TestCheckout restarted = restart("a");
    assertThat(restarted.transaction().pending()).as("the record the dead process left")
        .hasValueSatisfying(p -> assertThat(p.state()).isEqualTo(PendingChange.State.IN_FLIGHT));

    TransactionResult replay = restarted.transaction().run(tx -> { });

    assertThat(replay.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(replay.warnings()).isEmpty();
    assertThat(f.shared().contains(name("@s/x"))).as("b's acknowledged removal").isFalse();
    assertThat(restarted.transaction().pending()).isEmpty();
  }

  /** Finding 7 of issue 8: a failed cleanup of the record after a successful publish turned success into an exception. */
  void aFailedRecordCleanupAfterASuccessfulPublish_isAWarning_andTheNextRunSettlesTheRecord() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    Path record = recordOf(a);
    AtomicReference<byte[]> left = new AtomicReference<>();
    f.store().faults().afterNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      left.set(TransactionFixture.bytesOf(record));
      undeletable(record);
    });

    TransactionResult result = a.put("@s/x", "1");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.warnings()).singleElement().asString()
        .startsWith("Published, but Cannot clear pending-change record " + record + ": ")
        .endsWith("; the next transaction finds the commit in the lineage and clears it");
    assertThat(versions(f.shared())).containsExactly(entry("@s/x", "1"));
    restore(record, left.get());
    assertThat(b.put("@s/x", "2").status()).isEqualTo(TransactionStatus.PUBLISHED);

    TransactionResult next = a.transaction().run(tx -> { });

    assertThat(next.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(next.warnings()).isEmpty();
    assertThat(versions(f.shared())).as("b's later change stands").containsExactly(entry("@s/x", "2"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void aCrashBeforeItsArchiveLanded_leavesNoEntryToReplay() throws IOException {
    MortalDatastore process = new MortalDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", process).build());
    ArchiveTransactions archives = ArchiveTransactions.of(a.tierlock());
    byte[] bytes = ArchiveFixture.archive("crash before the upload");
    ExtensionArchiveKey key = ArchiveFixture.keyOf("@s/x", bytes);
    VerifiedArchive verified = archives.verify(key, Files.write(f.temp().resolve("x.tar.gz"), bytes));
    f.store().faults().beforeNext(DatastoreOperation.WRITE, NAMESPACE.key(key.tierPath())::equals, () -> {
      throw process.die();
    });

    assertThatThrownBy(() -> a.transaction().run(tx -> archives.install(tx, verified, f.entry("1"))))
        .isInstanceOf(MortalDatastore.Crash.class);
    TestCheckout restarted = restart("a");

    assertThat(restarted.transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(f.shared().contains(name("@s/x"))).isFalse();
    assertThat(f.created().stat(NAMESPACE.key(key.tierPath()))).isEmpty();
  }

  void aCrashAfterItsArchiveLanded_publishesTheEntryThatPinsIt() throws IOException {
    MortalDatastore process = new MortalDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", process).build());
    ArchiveTransactions archives = ArchiveTransactions.of(a.tierlock());
    byte[] bytes = ArchiveFixture.archive("crash before the lockfile");
    ExtensionArchiveKey key = ArchiveFixture.keyOf("@s/x", bytes);
    VerifiedArchive verified = archives.verify(key, Files.write(f.temp().resolve("x.tar.gz"), bytes));
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      throw process.die();
    });

    assertThatThrownBy(() -> a.transaction().run(tx -> archives.install(tx, verified, f.entry("1"))))
        .isInstanceOf(MortalDatastore.Crash.class);
    TestCheckout restarted = restart("a");

    assertThat(restarted.transaction().run(tx -> { }).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(f.shared().entry(name("@s/x")).flatMap(e -> e.checksum())).contains(key.sha256());
    assertThat(f.created().stat(NAMESPACE.key(key.tierPath()))).isPresent();
  }

  /**
   * Two instances on one checkout (as two processes would be): a stalls past its lease in its run,
   * b starts a run meanwhile and takes the stale lease over. Without the checkout's transaction
   * lock b would read the pending record and the cache while a is between its fetch and its write.
   */
  void twoInstancesOnOneCheckout_serialiseTheirRuns_evenWhenOneStallsPastItsLease() throws InterruptedException {
    TestCheckout a = f.checkout("shared");
    QueueWatch queue = new QueueWatch();
    TestCheckout b = f.register(f.builder("shared").queueing(queue).build());
    AtomicReference<Object> bEnded = new AtomicReference<>();
    Thread bRun = new Thread(() -> {
      try {
        bEnded.set(b.put("@s/b", "1"));
      } catch (RuntimeException | Error e) {
        bEnded.set(e);
      }
    }, "second instance on the same checkout");
    f.store().faults().beforeNext(DatastoreOperation.READ, isLockfile(), () -> {
      f.stallPastTheLease();
      bRun.start();
      try {
        queue.await(bRun);  // b queued behind a's run in this JVM: it runs only once a's is done
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Cannot wait for b to queue: interrupted", e);
      }
    });

    TransactionResult result = a.transaction().run(tx -> {
      tx.put(name("@s/a"), f.entry("1"));
      assertThat(bEnded.get()).as("b has not run while a runs").isNull();
    });
    bRun.join(TimeUnit.SECONDS.toMillis(30));

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(bEnded.get()).isInstanceOfSatisfying(TransactionResult.class, r -> {
      assertThat(r.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(versions(r.lockfile())).as("b ran after a, on a's change").containsExactly(entry("@s/a", "1"),
          entry("@s/b", "1"));
    });
    assertThat(versions(f.shared())).containsExactly(entry("@s/a", "1"), entry("@s/b", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  void aCheckoutLockedByAnotherProcess_timesTheRunOutNamingTheLock() throws Exception {
    TestCheckout a = f.register(f.builder("a").transactionDeadline(Duration.ofSeconds(5)).build());
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
      assertThat(f.shared().isEmpty()).as("nothing was published while the other process held the checkout").isTrue();
      child.release();
    }
    assertThat(a.put("@s/x", "1").status()).as("the global lock was released").isEqualTo(TransactionStatus.PUBLISHED);
  }

  /** Plays a restarted process on checkout {@code name}: a new instance on its directory, on the store itself. */
  private TestCheckout restart(String name) {
    return f.register(f.builder(name).build());
  }

  /** Replaces {@code record} with a directory that is not empty, so that deleting it fails. */
  private static void undeletable(Path record) {
    try {
      Files.delete(record);
      Files.createDirectories(record);
      Files.writeString(record.resolve("keeps-the-directory"), "x");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Puts {@code bytes} back as {@code record}, as the record whose cleanup failed. */
  private static void restore(Path record, byte[] bytes) {
    try {
      Files.delete(record.resolve("keeps-the-directory"));
      Files.delete(record);
      Files.write(record, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
