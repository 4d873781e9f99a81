package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.Namespace;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectKey;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HELD (coverage). Optimistic + DEFER + a process killed around the warm publish (MortalDatastore):
 * the pending record written before the write carries the attempt (commit id, the cached parent),
 * so a restarted process on the checkout settles it by the lineage, never applying it twice and
 * never losing it, even when the restarted process's cache files are older than the shared lockfile.
 */
class OptimisticCrashTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();

  @AfterEach
  void tearDown() {
    remote.close();
  }

  /** Killed right after the warm write landed, before the cache and the record were updated. */
  @Test
  void killedAfterTheWarmWriteLanded_theRestartedProcessSettlesItAsLanded() {
    MortalDatastore process = new MortalDatastore(remote);
    TestCheckout dying = builder(process).build();
    dying.put("@s/a", "1.0.0");
    remote.faults().afterNext(DatastoreOperation.WRITE, LOCKFILE::equals, () -> {
      throw process.die();
    });

    assertThatThrownBy(() -> dying.put("@s/x", "1.0.0")).isInstanceOf(MortalDatastore.Crash.class);
    assertThat(TestCheckout.sharedLockfile(remote, Namespace.NONE).entry(ExtensionName.of("@s/x"))).isPresent();
    assertThat(dying.transaction().pending()).isPresent();
    // a peer writes meanwhile; the restarted process's cache files still say the version before both
    TestCheckout peer = builder(remote).build();
    peer.put("@s/p", "1.0.0");
    TestCheckout restarted = builder(remote).build();

    TransactionResult next = restarted.put("@s/y", "1.0.0");

    assertThat(next.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(restarted.shared().entries().keySet()).extracting(ExtensionName::value)
        .containsExactlyInAnyOrder("@s/a", "@s/x", "@s/p", "@s/y");
    assertThat(restarted.transaction().pending()).isEmpty();
  }

  /** Killed after the record was written and before the warm write was sent: the next run publishes it. */
  @Test
  void killedBeforeTheWarmWriteWasSent_theRestartedProcessPublishesIt() {
    MortalDatastore process = new MortalDatastore(remote);
    TestCheckout dying = builder(process).build();
    dying.put("@s/a", "1.0.0");
    remote.faults().beforeNext(DatastoreOperation.WRITE, LOCKFILE::equals, () -> {
      throw process.die();
    });

    assertThatThrownBy(() -> dying.put("@s/x", "1.0.0")).isInstanceOf(MortalDatastore.Crash.class);
    assertThat(TestCheckout.sharedLockfile(remote, Namespace.NONE).entry(ExtensionName.of("@s/x"))).isEmpty();
    TestCheckout restarted = builder(remote).build();

    TransactionResult next = restarted.put("@s/y", "1.0.0");

    assertThat(next.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(restarted.shared().entries().keySet()).extracting(ExtensionName::value)
        .containsExactlyInAnyOrder("@s/a", "@s/x", "@s/y");
    assertThat(restarted.transaction().pending()).isEmpty();
  }

  private TestCheckout.Builder builder(dev.tierlock.spi.Datastore store) {
    return TestCheckout.builder(store, dir.resolve("c"), clock).commitMode(CommitMode.OPTIMISTIC)
        .publishFailurePolicy(PublishFailurePolicy.DEFER);
  }
}
