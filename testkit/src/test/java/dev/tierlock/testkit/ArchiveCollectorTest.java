package dev.tierlock.testkit;

import static dev.tierlock.testkit.ArchiveFixture.archive;
import static dev.tierlock.testkit.ArchiveFixture.keyOf;
import static dev.tierlock.testkit.ArchiveFixture.objectKey;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ArchiveCollector;
import dev.tierlock.ArchiveCollector.Verdict;
import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionStatus;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.StoredObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A collection deletes an archive only when no lockfile version within the window pins it and it
 * is older than the window, both on the store's clock; it keeps or stores back an archive a writer
 * pins while it runs; and it deletes nothing on a store that tells no times.
 */
class ArchiveCollectorTest {

  private static final ExtensionName TOOL = ExtensionName.of("@acme/tool");
  private static final Duration WEEK = ArchiveCollector.DEFAULT_RETENTION;

  @TempDir Path temp;

  /** The store's own clock; the checkouts' clocks are elsewhere. */
  private final TestClock storeClock = TestClock.create();
  private final TestClock clientClock = TestClock.create();
  private final List<Tierlock> opened = new ArrayList<>();
  private final FakeRemote remote = FakeRemote.builder().clock(storeClock).build();

  @AfterEach
  void close() {
    opened.forEach(Tierlock::close);
    remote.close();
  }

  @Test
  void onlyAnArchiveUnpinnedAndOlderThanTheWindow_onTheStoresClock_isDeleted() throws IOException {
    Tierlock a = checkout("a", remote, clientClock);
    ArchiveTransactions archives = ArchiveTransactions.of(a, ArchiveLimits.DEFAULTS, clientClock);
    ExtensionArchiveKey one = install(a, archives, "tool 1", "1");
    ExtensionArchiveKey two = install(a, archives, "tool 2", "2");
    storeClock.advance(WEEK.minusHours(1));

    assertThat(verdicts(ArchiveCollector.collect(a, WEEK, true))).as("unpinned within the window: kept")
        .containsEntry(one, Verdict.RECENT).containsEntry(two, Verdict.PINNED);

    storeClock.advance(Duration.ofHours(2));
    // a client whose clock lags a month changes nothing: only the store's clock counts
    clientClock.set(clientClock.instant().minus(Duration.ofDays(30)));
    ArchiveCollector.Collection dry = ArchiveCollector.collect(a, WEEK, false);
    assertThat(verdicts(dry)).containsEntry(one, Verdict.COLLECTABLE).containsEntry(two, Verdict.PINNED);
    assertThat(remote.stat(objectKey(one))).as("a dry run deletes nothing").isPresent();

    ArchiveCollector.Collection applied = ArchiveCollector.collect(a, WEEK, true);

    assertThat(verdicts(applied)).containsEntry(one, Verdict.DELETED).containsEntry(two, Verdict.PINNED);
    assertThat(remote.stat(objectKey(one))).isEmpty();
    assertThat(remote.stat(objectKey(two))).isPresent();
    assertThat(applied.warnings()).isEmpty();
  }

  @Test
  void anOldArchiveUnpinnedWithinTheWindow_isKept_byItsMark() throws IOException {
    Tierlock a = checkout("a", remote, clientClock);
    ArchiveTransactions archives = ArchiveTransactions.of(a, ArchiveLimits.DEFAULTS, clientClock);
    ExtensionArchiveKey one = install(a, archives, "tool 1", "1");
    storeClock.advance(WEEK.multipliedBy(3));
    install(a, archives, "tool 2", "2");
    storeClock.advance(Duration.ofDays(1));

    assertThat(verdicts(ArchiveCollector.collect(a, WEEK, true))).containsEntry(one, Verdict.RECENTLY_PINNED);
    assertThat(remote.stat(objectKey(one))).isPresent();
  }

  @Test
  void aWriterThatPinsTheArchiveAsItIsDeleted_findsItInTheTier() throws IOException {
    Tierlock a = checkout("a", remote, clientClock);
    Tierlock b = checkout("b", remote, clientClock);
    ArchiveTransactions archives = ArchiveTransactions.of(a, ArchiveLimits.DEFAULTS, clientClock);
    ArchiveTransactions bArchives = ArchiveTransactions.of(b, ArchiveLimits.DEFAULTS, clientClock);
    byte[] bytes = archive("tool 1");
    ExtensionArchiveKey one = install(a, archives, "tool 1", "1");
    install(a, archives, "tool 2", "2");
    storeClock.advance(WEEK.plusDays(1));
    var rollback = bArchives.verify(one, Files.write(temp.resolve("b-one.tar.gz"), bytes));
    // b rolls back to the first archive (present: it stores nothing) right before the delete lands
    remote.faults().beforeNext(DatastoreOperation.DELETE, objectKey(one)::equals, () -> assertThat(
        b.transaction().run(tx -> bArchives.install(tx, rollback, entry("1-again"))).status())
        .isEqualTo(TransactionStatus.PUBLISHED));

    ArchiveCollector.Collection collected = ArchiveCollector.collect(a, WEEK, true);

    assertThat(remote.faults().pendingHooks()).isZero();
    assertThat(verdicts(collected).get(one)).isIn(Verdict.CHANGED, Verdict.STORED_BACK);
    assertThat(a.snapshot().entry(TOOL).flatMap(LockfileEntry::checksum)).contains(one.sha256());
    assertThat(remote.stat(objectKey(one))).as("the archive the shared lockfile pins is in the tier").isPresent();
  }

  @Test
  void aStoreThatTellsNoTimes_hasNothingCollected() throws IOException {
    Datastore undated = new ForwardingDatastore() {
      @Override
      protected Datastore delegate() {
        return remote;
      }

      @Override
      public Optional<StoredObject> stat(ObjectKey key) {
        return remote.stat(key).map(o -> new StoredObject(o.key(), o.version(), o.size(), o.metadata()));
      }

      @Override
      public List<StoredObject> list(String prefix) {
        return remote.list(prefix).stream().map(o -> new StoredObject(o.key(), o.version(), o.size(), o.metadata()))
            .toList();
      }
    };
    Tierlock a = checkout("a", undated, clientClock);
    ArchiveTransactions archives = ArchiveTransactions.of(a, ArchiveLimits.DEFAULTS, clientClock);
    ExtensionArchiveKey one = install(a, archives, "tool 1", "1");
    install(a, archives, "tool 2", "2");
    storeClock.advance(WEEK.multipliedBy(10));

    ArchiveCollector.Collection collected = ArchiveCollector.collect(a, WEEK, true);

    assertThat(collected.storeTime()).isEmpty();
    assertThat(verdicts(collected)).containsEntry(one, Verdict.NO_TIME);
    assertThat(remote.stat(objectKey(one))).isPresent();
  }

  private ExtensionArchiveKey install(Tierlock tierlock, ArchiveTransactions archives, String text, String version)
      throws IOException {
    byte[] bytes = archive(text);
    ExtensionArchiveKey key = keyOf(TOOL.value(), bytes);
    var verified = archives.verify(key, Files.write(Files.createTempFile(temp, "archive", ".tar.gz"), bytes));
    assertThat(tierlock.transaction().run(tx -> archives.install(tx, verified, entry(version))).status())
        .isEqualTo(TransactionStatus.PUBLISHED);
    return key;
  }

  private LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, clientClock.instant()).build();
  }

  private static Map<ExtensionArchiveKey, Verdict> verdicts(ArchiveCollector.Collection collection) {
    return collection.archives().stream().collect(Collectors.toMap(
        j -> ExtensionArchiveKey.fromTierPath(j.archive()).orElseThrow(), ArchiveCollector.Judged::verdict));
  }

  private Tierlock checkout(String name, Datastore store, Clock clock) {
    Tierlock tierlock = Tierlock.builder().datastore(store).checkout(temp.resolve(name))
        .environment(Environment.system().withClock(clock).withSleeper(clientClock.sleeper())
            .withRandom(new SplittableRandom(name.hashCode())))
        .build();
    opened.add(tierlock);
    return tierlock;
  }
}
