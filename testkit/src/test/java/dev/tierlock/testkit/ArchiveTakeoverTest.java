package dev.tierlock.testkit;

import static dev.tierlock.testkit.ArchiveFixture.archive;
import static dev.tierlock.testkit.ArchiveFixture.isLockfile;
import static dev.tierlock.testkit.ArchiveFixture.keyOf;
import static dev.tierlock.testkit.ArchiveFixture.objectKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockOptions;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live, heartbeating lease holder whose lease a waiter takes over (the waiter's clock runs ahead,
 * or it shares the holder's host name but not its process ids) never deletes an archive the
 * waiter pins: the holder H installs {@code @acme/tool} 1.0.0 (archive A), then 1.1.0 (archive B);
 * right after H's publish of B, while H still renews its lease, the waiter W takes the lease over
 * and rolls the tool back to 1.0.0 (A is in the tier, so W stores nothing); then H's run ends. The
 * shared lockfile pins A, and A must be in the tier. Nothing here rests on which of the two the
 * lease names: no archive is deleted in the commit path at all.
 */
class ArchiveTakeoverTest {

  private static final ExtensionName TOOL = ExtensionName.of("@acme/tool");
  private static final String SHARED_HOST = "shared-host";

  @TempDir Path temp;

  private final TestClock clock = TestClock.create();
  private final List<Tierlock> opened = new ArrayList<>();
  private FakeRemote remote;
  private FaultyDatastore holderStore;

  @BeforeEach
  void open() {
    remote = FakeRemote.create();
    holderStore = FaultyDatastore.wrap(remote);
  }

  @AfterEach
  void close() {
    opened.forEach(Tierlock::close);
    remote.close();
  }

  @Test
  void aWaiterWhoseClockRunsAheadTakesTheLeaseOver_andTheHolderKeepsTheArchiveItPins() throws IOException {
    ManualHeartbeats holderBeats = ManualHeartbeats.create();
    Tierlock holder = checkout("holder", holderStore, environment("holder", clock, holderBeats, "holder-host", 100));
    // about 61 s ahead: the holder's fresh record looks more than twice the 30 s ttl old to it
    Clock ahead = Clock.offset(clock, LockOptions.DEFAULTS.ttl().multipliedBy(2).plusSeconds(1));
    Tierlock waiter = checkout("waiter", remote, environment("waiter", ahead, ManualHeartbeats.create(), "waiter-host",
        200));

    rollBackDuringTheHoldersUpgrade(holder, waiter, holderBeats);
  }

  @Test
  void aWaiterInAnotherPidNamespaceOfTheSameHostTakesTheLeaseOver_andTheHolderKeepsTheArchiveItPins()
      throws IOException {
    ManualHeartbeats holderBeats = ManualHeartbeats.create();
    Instant holderStart = clock.instant().minusSeconds(3600);
    Environment holderEnvironment = environment("holder", clock, holderBeats, SHARED_HOST, 100)
        .withHostProcesses(HostTable.of(SHARED_HOST).run(100, holderStart));
    Tierlock holder = checkout("holder", holderStore, holderEnvironment);
    // the waiter's container shares the host name, not the process table: pid 100 is not running there
    Environment waiterEnvironment = environment("waiter", clock, ManualHeartbeats.create(), SHARED_HOST, 200)
        .withHostProcesses(HostTable.of(SHARED_HOST).run(200, holderStart));
    Tierlock waiter = checkout("waiter", remote, waiterEnvironment);

    rollBackDuringTheHoldersUpgrade(holder, waiter, holderBeats);
  }

  /**
   * The holder installs 1.0.0, then 1.1.0; right after its second publish lands (its lease still
   * renewed), the waiter takes the lease over and rolls back to 1.0.0; then the holder's run ends.
   */
  private void rollBackDuringTheHoldersUpgrade(Tierlock holder, Tierlock waiter, ManualHeartbeats holderBeats)
      throws IOException {
    byte[] first = archive("tool 1.0.0");
    byte[] second = archive("tool 1.1.0");
    ExtensionArchiveKey a = keyOf(TOOL.value(), first);
    ExtensionArchiveKey b = keyOf(TOOL.value(), second);
    ArchiveTransactions holderArchives = ArchiveTransactions.of(holder, ArchiveLimits.DEFAULTS, clock);
    ArchiveTransactions waiterArchives = ArchiveTransactions.of(waiter, ArchiveLimits.DEFAULTS, clock);
    assertThat(install(holder, holderArchives, verify(holderArchives, a, first), "1.0.0").status())
        .isEqualTo(TransactionStatus.PUBLISHED);
    VerifiedArchive rolledBack = verify(waiterArchives, a, first);

    AtomicReference<TransactionResult> rollback = new AtomicReference<>();
    holderStore.faults().afterNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      assertThat(holderBeats.beat()).as("the holder renews its lease: it is alive").isEqualTo(1);
      rollback.set(install(waiter, waiterArchives, rolledBack, "1.0.0"));
    });
    TransactionResult upgrade = install(holder, holderArchives, verify(holderArchives, b, second), "1.1.0");

    assertThat(holderStore.faults().pendingHooks()).isZero();
    assertThat(upgrade.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(rollback.get().status()).as("the waiter's rollback is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(sharedChecksum()).as("the shared lockfile pins A again").contains(a.sha256());
    assertThat(remote.stat(objectKey(a))).as("the archive the shared lockfile pins is in the tier").isPresent();
    assertThat(remote.stat(objectKey(b))).as("B is unpinned, and kept until a collection judges it").isPresent();
  }

  private VerifiedArchive verify(ArchiveTransactions archives, ExtensionArchiveKey key, byte[] bytes)
      throws IOException {
    return archives.verify(key, Files.write(Files.createTempFile(temp, "archive", ".tar.gz"), bytes));
  }

  private TransactionResult install(Tierlock tierlock, ArchiveTransactions archives, VerifiedArchive verified,
      String version) {
    LockfileEntry entry = LockfileEntry.builder(version, clock.instant()).build();
    return tierlock.transaction().run(tx -> archives.install(tx, verified, entry));
  }

  private Optional<String> sharedChecksum() {
    return TestCheckout.sharedLockfile(remote, Namespace.NONE).entry(TOOL).flatMap(LockfileEntry::checksum);
  }

  private Environment environment(String name, Clock at, ManualHeartbeats beats, String host, long pid) {
    return Environment.system().withClock(at).withSleeper(clock.sleeper())
        .withRandom(new SplittableRandom(name.hashCode())).withHeartbeats(beats)
        .withLockIdentity(LockIdentity.of(name + "@" + host, host, pid));
  }

  private Tierlock checkout(String name, Datastore store, Environment environment) {
    Tierlock tierlock = Tierlock.builder().datastore(store).checkout(temp.resolve(name)).environment(environment)
        .build();
    opened.add(tierlock);
    tierlock.checkDatastore();
    return tierlock;
  }
}
