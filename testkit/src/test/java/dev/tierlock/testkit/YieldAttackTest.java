package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.CommitMode;
import dev.tierlock.DistributedLock;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attacks on a batch that yields to the lease (it lost three races in a row) between its two
 * passes: after its loop gave up and before it holds the lease again, the checkout lock is free and
 * nothing of the batch has landed. A peer that takes no lease, or another instance of the same
 * checkout, acts in that gap (a hook before the lease's create): the carried change is rebased name
 * by name onto what it then finds, never written over it.
 */
class YieldAttackTest {

  private static final ObjectKey LEASE = DistributedLock.globalKey(Namespace.NONE);
  private static final ExtensionName X = ExtensionName.of("@s/x");
  private static final ExtensionName Y = ExtensionName.of("@s/y");
  private static final ExtensionName Z = ExtensionName.of("@s/z");

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.create();
  private final FaultyDatastore faulty = FaultyDatastore.wrap(remote);
  private final TestClock clock = TestClock.create();

  @AfterEach
  void tearDown() {
    assertThat(faulty.faults().pendingHooks()).isZero();
    remote.close();
  }

  /**
   * A peer without the lease sets x in the gap: the yielded batch, which set x on the value before
   * the peer's, fails with a conflict naming the peer's value; the peer's x stays, and the batch's
   * change to y is still published ({@link LockfileConflictException}).
   */
  @Test
  void aPeerWritingANameInTheGapBeforeTheLease_isAConflictForTheYieldedBatch_neverOverwritten() {
    TestCheckout writer = checkout(faulty, "writer", CommitMode.OPTIMISTIC, PublishFailurePolicy.THROW);
    TestCheckout peer = checkout(remote, "peer", CommitMode.OPTIMISTIC, PublishFailurePolicy.THROW);
    writer.put("@s/x", "1.0.0");
    peer.transaction().refresh();
    loseThreeRaces(peer);
    List<Boolean> hooked = new ArrayList<>();
    faulty.faults().beforeNext(DatastoreOperation.WRITE, LEASE::equals, () -> {
      peer.put("@s/x", "9.0.0");
      hooked.add(true);
    });
    LockfileEntry mine = writer.entry("2.0.0");

    assertThatThrownBy(() -> writer.transaction().run(tx -> {
      tx.put(X, mine);
      tx.put(Y, writer.entry("1.0.0"));
    })).isInstanceOf(LockfileConflictException.class).hasMessageContaining("9.0.0");

    assertThat(hooked).as("the peer wrote in the gap before the lease").containsExactly(true);
    assertThat(writer.shared().entry(X)).as("the peer's x stays").map(LockfileEntry::version).contains("9.0.0");
    assertThat(writer.shared().entry(Y)).as("its change to another name is still published, as documented")
        .map(LockfileEntry::version).contains("1.0.0");
    assertThat(writer.transaction().pending()).isEmpty();
  }

  /**
   * Another instance of the same checkout fails to publish z in the gap and leaves it pending: the
   * yielded batch, under the lease, reads that record, replays it and publishes z with its own
   * change in one write; the record is cleared.
   */
  @Test
  void aPendingRecordLeftInTheGapBeforeTheLease_isPublishedWithTheCarriedChange() {
    TestCheckout writer = checkout(faulty, "c", CommitMode.OPTIMISTIC, PublishFailurePolicy.THROW);
    TestCheckout other = TestCheckout.builder(faulty, dir.resolve("c"), clock).commitMode(CommitMode.OPTIMISTIC)
        .publishFailurePolicy(PublishFailurePolicy.DEFER).maxPublishAttempts(1).build();
    TestCheckout peer = checkout(remote, "peer", CommitMode.OPTIMISTIC, PublishFailurePolicy.THROW);
    writer.put("@s/x", "1.0.0");
    peer.transaction().refresh();
    loseThreeRaces(peer);
    List<TransactionResult> deferred = new ArrayList<>();
    faulty.faults().beforeNext(DatastoreOperation.WRITE, LEASE::equals, () -> {
      faulty.faults().failNext(DatastoreOperation.WRITE, ArchiveFixture.isLockfile(), 1, Fault.UNAVAILABLE);
      deferred.add(other.put("@s/z", "1.0.0"));
    });

    TransactionResult result = writer.put("@s/x", "2.0.0");

    assertThat(deferred).singleElement().extracting(TransactionResult::status).isEqualTo(TransactionStatus.DEFERRED);
    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(writer.shared().entry(X)).map(LockfileEntry::version).contains("2.0.0");
    assertThat(writer.shared().entry(Z)).as("the record left in the gap is published with the carried change")
        .map(LockfileEntry::version).contains("1.0.0");
    assertThat(writer.transaction().pending()).isEmpty();
  }

  /** The peer lands a name of its own just before each of the writer's next three lockfile writes. */
  private void loseThreeRaces(TestCheckout peer) {
    for (int race = 0; race < 3; race++) {
      String version = "1.0." + race;
      faulty.faults().beforeNext(DatastoreOperation.WRITE, ArchiveFixture.isLockfile(),
          () -> peer.put("@s/peer", version));
    }
  }

  private TestCheckout checkout(dev.tierlock.spi.Datastore store, String name, CommitMode mode,
      PublishFailurePolicy policy) {
    return TestCheckout.builder(store, dir.resolve(name), clock).commitMode(mode).publishFailurePolicy(policy).build();
  }
}
