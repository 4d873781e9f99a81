package dev.tierlock.testkit;

import static dev.tierlock.testkit.ArchiveFixture.archive;
import static dev.tierlock.testkit.ArchiveFixture.keyOf;
import static dev.tierlock.testkit.ArchiveFixture.objectKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.DistributedLock;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import dev.tierlock.spi.ObjectKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adversarial review: deleting a superseded archive racing a re-pin of it, LOCKED beside OPTIMISTIC.
 *
 * <p>README: "An optimistic run whose change pins an archive its starting lockfile did not pin for
 * that name, or deletes one, publishes under the lease, so deleting a superseded archive and
 * pinning it again never interleave." ArchiveTransactions: "The lockfile never references bytes the
 * tier lacks ... Under the global lock no peer's removal can delete the archive between the write
 * and the entry."
 *
 * <p>But an optimistic run takes the lease only for the publish (pass two, CommitRun returns
 * Carried): the change itself, and with it {@code ArchiveTransactions.install}'s archive write,
 * runs in pass one under the checkout lock alone. Fault sequence:
 *
 * <ol>
 *   <li>L (locked) pins @acme/tools to archive C1 (v1), then installs C2: it publishes v2 (pins C2)
 *       under the lease and is about to delete the superseded C1 (still holding the lease);
 *   <li>O (optimistic, cold: it fetches v2) re-installs C1 (a rollback): pass one writes C1
 *       create-only, finds it already there (same size), pins it, sees a new pin and goes for the
 *       lease, which L holds;
 *   <li>L stats and deletes C1 (the version it saw is the one O found), releases the lease;
 *   <li>O takes the lease, pass two rebases its carried pin onto v2 (unchanged name: applies) and
 *       publishes v3 pinning C1, whose bytes are gone.
 * </ol>
 *
 * The shared lockfile then references an archive the tier lacks: every peer's restore of it fails
 * (archive_missing) although the install was acknowledged PUBLISHED. The same race with O LOCKED
 * runs O's change (and archive write) only after L's delete, so the archive is written again: the
 * control passes.
 */
class OptimisticArchiveRepinTest {

  private static final ObjectKey LOCK = DistributedLock.globalKey(Namespace.NONE);
  private static final ExtensionName TOOLS = ExtensionName.of("@acme/tools");

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();

  @AfterEach
  void tearDown() {
    remote.close();
  }

  @Test
  void anOptimisticRepinRacingTheDeletionOfThatArchive_neverPublishesAPinWithoutItsBytes() throws Exception {
    race(CommitMode.OPTIMISTIC);
  }

  @Test
  void control_aLockedRepinRacingTheDeletion_writesTheArchiveAgain() throws Exception {
    race(CommitMode.LOCKED);
  }

  private void race(CommitMode repinMode) throws Exception {
    TestCheckout l = TestCheckout.builder(remote, dir.resolve("l"), clock).commitMode(CommitMode.LOCKED).build();
    TestCheckout o = TestCheckout.builder(remote, dir.resolve("o"), clock).commitMode(repinMode).build();
    ArchiveTransactions lArchives = ArchiveTransactions.of(l.tierlock(), ArchiveLimits.DEFAULTS, clock);
    ArchiveTransactions oArchives = ArchiveTransactions.of(o.tierlock(), ArchiveLimits.DEFAULTS, clock);
    byte[] one = archive("one");
    byte[] two = archive("two");
    ExtensionArchiveKey c1 = keyOf(TOOLS.value(), one);
    ExtensionArchiveKey c2 = keyOf(TOOLS.value(), two);
    VerifiedArchive lOne = lArchives.verify(c1, file("l1.tar.gz", one));
    VerifiedArchive lTwo = lArchives.verify(c2, file("l2.tar.gz", two));
    VerifiedArchive oOne = oArchives.verify(c1, file("o1.tar.gz", one));
    l.transaction().run(tx -> lArchives.install(tx, lOne, entry("1.0.0")));
    assertThat(remote.peekObject(objectKey(c1))).isPresent();

    CountDownLatch oAtTheLease = new CountDownLatch(1);
    CountDownLatch leaseReleased = new CountDownLatch(1);
    CompletableFuture<TransactionResult> repin = new CompletableFuture<>();
    // L has published v2 (pins C2) and, still under the lease, is about to delete C1
    remote.faults().beforeNext(DatastoreOperation.STAT, objectKey(c1)::equals, () -> {
      remote.faults().afterNext(DatastoreOperation.DELETE, LOCK::equals, leaseReleased::countDown);
      remote.faults().beforeNext(DatastoreOperation.WRITE, LOCK::equals, () -> {
        // O's first try for the lease: wait until L deleted C1 and released the lease
        oAtTheLease.countDown();
        await(leaseReleased);
      });
      Thread repinner = new Thread(() -> {
        try {
          repin.complete(o.transaction().run(tx -> oArchives.install(tx, oOne, entry("1.0.0"))));
        } catch (Throwable t) {
          repin.completeExceptionally(t);
        }
      }, "repin");
      repinner.start();
      await(oAtTheLease);
    });

    TransactionResult superseding = l.transaction().run(tx -> lArchives.install(tx, lTwo, entry("2.0.0")));

    assertThat(superseding.status()).isEqualTo(TransactionStatus.PUBLISHED);
    TransactionResult repinned = repin.get(30, TimeUnit.SECONDS);
    assertThat(repinned.status()).isEqualTo(TransactionStatus.PUBLISHED);
    Optional<String> pinned = o.shared().entry(TOOLS).flatMap(LockfileEntry::checksum);
    assertThat(pinned).contains(c1.sha256());
    assertThat(remote.peekObject(objectKey(c1)))
        .as("the shared lockfile pins %s (acknowledged PUBLISHED to %s): its bytes must be in the tier", c1, repinMode)
        .isPresent();
  }

  private LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, clock.instant()).build();
  }

  private Path file(String name, byte[] bytes) throws IOException {
    Path path = dir.resolve("downloads").resolve(name);
    Files.createDirectories(path.getParent());
    return Files.write(path, bytes);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("timed out waiting for the race's next step");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
