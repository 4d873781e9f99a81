package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.DistributedLock;
import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CommitMode#AUTO}: optimistic while the lockfile's recent versions are all Tierlock's,
 * locked from the first version without Tierlock's commit metadata, optimistic again after eight
 * Tierlock versions in a row; a foreign last-writer-wins writer that respects the lease (the
 * original tool) joins and leaves, and no acknowledged Tierlock change is lost. Counts are exact
 * calls at the Tierlock checkout's store; the foreign writer's calls go around the counter.
 */
class AutoModeTest {

  /** The default of {@code Tierlock.Builder#autoTrustAfter}. */
  private static final int TRUST_AFTER = 8;

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final ObjectKey LOCK = DistributedLock.globalKey(Namespace.NONE);

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.create();
  private final CountingDatastore counting = CountingDatastore.wrap(remote);
  private final TestClock clock = TestClock.create();

  @AfterEach
  void tearDown() {
    remote.close();
  }

  @Test
  void aNewLockfile_isWrittenUnderTheLeaseUntilEightTierlockVersions_thenOneCallPerWarmCommit() {
    TestCheckout auto = checkout("auto");

    List<Long> calls = new ArrayList<>();
    for (int i = 0; i < TRUST_AFTER + 2; i++) {
      String version = "1.0." + i;
      calls.add(counted(() -> auto.put("@s/a", version)));
    }

    // absent: one read, then the lease (acquire, conditional read, create, release); then locked (4)
    // until the head's lineage holds eight Tierlock commits; then the cached version, one write
    List<Long> expected = new ArrayList<>(List.of(5L));
    expected.addAll(Collections.nCopies(TRUST_AFTER - 1, 4L));
    expected.addAll(List.of(1L, 1L));
    assertThat(calls).isEqualTo(expected);
    assertThat(auto.shared().entry(name("@s/a"))).map(LockfileEntry::version).contains("1.0." + (TRUST_AFTER + 1));
  }

  @Test
  void aForeignWriterJoinsAndLeaves_lockedWhileItWrites_oneCallAgainAfterEightTierlockVersions_nothingLost() {
    TestCheckout auto = checkout("auto");
    TestCheckout peer = checkout("peer");
    Foreign foreign = new Foreign(TestCheckout.builder(remote, dir.resolve("foreign"), clock).build());
    for (int i = 0; i < TRUST_AFTER; i++) {
      auto.put("@s/warmup", "1.0." + i);
    }
    peer.transaction().refresh();

    // before: optimistic, one call per warm commit
    assertThat(counted(() -> auto.put("@s/a", "1.0.0"))).isEqualTo(1);

    // the foreign writer takes the lease and reads; a Tierlock commit lands without the lease
    // (acknowledged); the foreign writer writes what it read plus its own change: the first overwrite
    Lockfile read = foreign.lockAndRead();
    assertThat(counted(() -> auto.put("@s/a", "2.0.0"))).isEqualTo(1);
    foreign.writeAndRelease(read.with(name("@f/x"), auto.entry("1.0.0")));
    assertThat(TestCheckout.sharedLockfile(remote, Namespace.NONE).entry(name("@s/a")))
        .map(LockfileEntry::version).contains("1.0.0");

    // during: the warm write is refused, the fetch shows a head without Tierlock's metadata, and the
    // batch publishes under the lease (acquire, conditional read, write, release), writing again the
    // name the foreign version set back
    counting.reset();
    TransactionResult during = auto.transaction().run(tx -> tx.put(name("@s/b"), auto.entry("1.0.0")));
    // the refused write, the fetch; the lease, the conditional read, the write, the release
    assertThat(counting.counts()).containsAllEntriesOf(Map.of(DatastoreOperation.WRITE, 3L,
        DatastoreOperation.READ, 2L, DatastoreOperation.DELETE, 1L));
    assertThat(counting.total()).isEqualTo(6);
    assertThat(during.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(during.warnings()).anySatisfy(w -> assertThat(w).contains("@s/a").contains("another tool"));
    Lockfile now = auto.shared();
    assertThat(now.entry(name("@s/a"))).map(LockfileEntry::version).contains("2.0.0");
    assertThat(now.entry(name("@f/x"))).isPresent();
    assertThat(now.entry(name("@s/b"))).isPresent();

    // the foreign writer writes again, under the lease, between Tierlock commits: nothing of either
    // side is lost. This checkout's head is not trusted: locked from the start (lease, read, write,
    // release); the peer, warm on a trusted head from before, meets the foreign version at its
    // refused write and yields to the lease like the first (6)
    foreign.writeAndRelease(foreign.lockAndRead().with(name("@f/y"), auto.entry("1.0.0")));
    assertThat(counted(() -> auto.put("@s/d", "1.0.0"))).isEqualTo(4);
    assertThat(counting.count(DatastoreOperation.DELETE)).isEqualTo(1);
    assertThat(counted(() -> peer.put("@s/p", "1.0.0"))).isEqualTo(6);
    foreign.writeAndRelease(foreign.lockAndRead().with(name("@f/z"), auto.entry("1.0.0")));

    // after: the foreign writer left; eight Tierlock versions in a row make the head trusted again
    List<Long> calls = new ArrayList<>();
    for (int i = 0; i < TRUST_AFTER; i++) {
      String version = "1.0." + i;
      calls.add(counted(() -> auto.put("@s/c", version)));
    }
    assertThat(calls).containsOnly(4L);
    assertThat(counted(() -> auto.put("@s/c", "2.0.0"))).isEqualTo(1);
    assertThat(remote.peekObject(LOCK)).isEmpty();

    Lockfile last = auto.shared();
    assertThat(last.entry(name("@s/a"))).map(LockfileEntry::version).contains("2.0.0");
    assertThat(last.entry(name("@s/b"))).isPresent();
    assertThat(last.entry(name("@s/p"))).isPresent();
    assertThat(last.entry(name("@s/d"))).isPresent();
    assertThat(last.entry(name("@s/c"))).map(LockfileEntry::version).contains("2.0.0");
    assertThat(last.names()).contains(name("@f/x"), name("@f/y"), name("@f/z"));
  }

  @Test
  void aForeignVersionSetToAValueOfItsOwn_isKept() {
    TestCheckout auto = checkout("auto");
    Foreign foreign = new Foreign(TestCheckout.builder(remote, dir.resolve("foreign"), clock).build());
    for (int i = 0; i < TRUST_AFTER; i++) {
      auto.put("@s/warmup", "1.0." + i);
    }
    auto.put("@s/a", "1.0.0");
    Lockfile read = foreign.lockAndRead();
    auto.put("@s/a", "2.0.0");
    foreign.writeAndRelease(read.with(name("@s/a"), auto.entry("9.0.0")));

    TransactionResult result = auto.put("@s/b", "1.0.0");

    assertThat(result.warnings()).noneSatisfy(w -> assertThat(w).contains("another tool"));
    assertThat(auto.shared().entry(name("@s/a"))).map(LockfileEntry::version).contains("9.0.0");
  }

  private long counted(Runnable commit) {
    counting.reset();
    commit.run();
    return counting.total();
  }

  private TestCheckout checkout(String name) {
    return TestCheckout.builder(counting, dir.resolve(name), clock).commitMode(CommitMode.AUTO).build();
  }

  private static ExtensionName name(String value) {
    return ExtensionName.of(value);
  }

  /**
   * The original tool: takes the lease, reads the lockfile, writes its edited copy unconditionally
   * with no metadata, releases the lease. Its calls go to the remote directly, uncounted.
   */
  private final class Foreign {
    private final TestCheckout lease;
    private DistributedLock.Held held;

    Foreign(TestCheckout lease) {
      this.lease = lease;
    }

    Lockfile lockAndRead() {
      held = lease.tierlock().globalLock().acquire();
      return TestCheckout.sharedLockfile(remote, Namespace.NONE);
    }

    void writeAndRelease(Lockfile edited) {
      WriteResult result = remote.write(LOCKFILE, ObjectBody.of(edited.bytes()), WriteCondition.none(),
          ObjectMetadata.EMPTY);
      assertThat(result).isInstanceOf(WriteResult.Written.class);
      held.release();
    }
  }
}
