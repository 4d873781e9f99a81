package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import dev.tierlock.DistributedLock;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockInfo;
import dev.tierlock.LockOptions;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No writer starves without the lease: a commit that loses three races in a row publishes under
 * the global lease, and a commit that lost a race while another writer holds the lease waits for
 * it instead of racing that writer. Exact calls at the committing checkout's store, on an injected
 * clock; the peers write around the counter.
 */
class YieldToLeaseTest {

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.create();
  private final FaultyDatastore faulty = FaultyDatastore.wrap(remote);
  private final CountingDatastore counting = CountingDatastore.wrap(faulty);
  private final TestClock clock = TestClock.create();

  @AfterEach
  void tearDown() {
    assertThat(faulty.faults().pendingHooks()).isZero();
    remote.close();
  }

  @Test
  void aCommitThatLosesThreeRacesInARow_publishesUnderTheLease() {
    for (CommitMode mode : new CommitMode[] {CommitMode.OPTIMISTIC, CommitMode.AUTO}) {
      TestCheckout writer = checkout(counting, "writer-" + mode, mode);
      TestCheckout peer = checkout(remote, "peer-" + mode, CommitMode.OPTIMISTIC);
      warm(writer, "@s/warm-" + slug(mode));
      peer.transaction().refresh();
      List<Optional<LockInfo>> leaseAtWrite = new ArrayList<>();
      for (int race = 0; race < 3; race++) {
        String version = "1.0." + race;
        // the peer lands just before each of the writer's first three lockfile writes
        faulty.faults().beforeNext(DatastoreOperation.WRITE, ArchiveFixture.isLockfile(), () -> {
          leaseAtWrite.add(peer.tierlock().globalLock().inspect());
          peer.put("@s/peer-" + slug(mode), version);
        });
      }
      faulty.faults().beforeNext(DatastoreOperation.WRITE, ArchiveFixture.isLockfile(),
          () -> leaseAtWrite.add(peer.tierlock().globalLock().inspect()));
      counting.reset();

      TransactionResult result = writer.put("@s/mine-" + slug(mode), "1.0.0");

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(leaseAtWrite).hasSize(4);
      assertThat(leaseAtWrite.subList(0, 3)).as("raced without the lease").allMatch(Optional::isEmpty);
      assertThat(leaseAtWrite.get(3)).as("the fourth write, under the writer's own lease")
          .hasValueSatisfying(info -> assertThat(info.holder()).isEqualTo("test@writer-" + mode));
      // three refused writes, each followed by a fetch, a look at the lease after the first two;
      // then the lease, a conditional read, the write, the release
      assertThat(counting.counts()).containsAllEntriesOf(Map.of(DatastoreOperation.WRITE, 5L,
          DatastoreOperation.READ, 6L, DatastoreOperation.DELETE, 1L));
      assertThat(counting.total()).isEqualTo(12);
      assertThat(writer.shared().entry(ExtensionName.of("@s/mine-" + slug(mode)))).isPresent();
      assertThat(writer.shared().entry(ExtensionName.of("@s/peer-" + slug(mode)))).isPresent();
    }
  }

  @Test
  void aCommitThatLostARaceWhileAnotherWriterHoldsTheLease_waitsForTheLease_insteadOfRacingIt() {
    TestCheckout writer = checkout(counting, "writer", CommitMode.OPTIMISTIC);
    TestCheckout peer = checkout(remote, "peer", CommitMode.OPTIMISTIC);
    TestCheckout holder = checkout(remote, "holder", CommitMode.LOCKED);
    warm(writer, "@s/warm");
    peer.put("@s/peer", "1.0.0");
    // another writer takes the lease and stops (its heartbeats never run here)
    DistributedLock.Held held = holder.tierlock().globalLock().acquire();
    Instant taken = clock.instant();
    List<Optional<LockInfo>> leaseAtWrite = new ArrayList<>();
    List<Instant> writeTimes = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      faulty.faults().beforeNext(DatastoreOperation.WRITE, ArchiveFixture.isLockfile(), () -> {
        leaseAtWrite.add(peer.tierlock().globalLock().inspect());
        writeTimes.add(clock.instant());
      });
    }
    counting.reset();

    TransactionResult result = writer.put("@s/mine", "1.0.0");

    assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
    // the first write, on a stale cached version, is refused; the lease is held: the writer waits
    // for it (here: until the stopped holder's lease is stale and taken over) and writes under it
    assertThat(leaseAtWrite).hasSize(2);
    assertThat(leaseAtWrite.get(0)).hasValueSatisfying(info -> assertThat(info.holder()).isEqualTo("test@holder"));
    assertThat(leaseAtWrite.get(1)).hasValueSatisfying(info -> assertThat(info.holder()).isEqualTo("test@writer"));
    assertThat(Duration.between(taken, writeTimes.get(1))).isGreaterThanOrEqualTo(LockOptions.DEFAULTS.ttl());
    // the stopped holder's stale lease deleted on takeover, then the writer's own released
    assertThat(counting.count(DatastoreOperation.DELETE)).isEqualTo(2);
    assertThat(held.isHeld()).isFalse();
    assertThat(writer.shared().names()).contains(ExtensionName.of("@s/mine"), ExtensionName.of("@s/peer"));
  }

  private void warm(TestCheckout checkout, String name) {
    for (int i = 0; i < 8; i++) {
      checkout.put(name, "0.0." + i);
    }
  }

  private TestCheckout checkout(dev.tierlock.spi.Datastore store, String name, CommitMode mode) {
    return TestCheckout.builder(store, dir.resolve(name), clock).commitMode(mode).build();
  }

  private static String slug(CommitMode mode) {
    return mode.name().toLowerCase(java.util.Locale.ROOT);
  }
}
