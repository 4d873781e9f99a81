package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.archive.ArchiveStore;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of the archive store ({@link ArchiveStore#over}) on any {@link Datastore}, alone
 * and with the lockfile ({@link dev.tierlock.archive.ArchiveTransactions}). A datastore module
 * subclasses it and implements one hook, {@link #createDatastore()}:
 *
 * <pre>{@code
 * class MyStoreArchiveStoreContractTest extends ArchiveStoreContract {
 *   @TempDir Path dir;
 *
 *   @Override protected Datastore createDatastore() {
 *     return MyStore.open(dir.resolve("tier"));   // fresh and empty for every test
 *   }
 * }
 * }</pre>
 *
 * <p>Each test gets a fresh, empty datastore shared by two checkouts ("A" and "B") that each have
 * their own cache and their own {@link FaultyDatastore} wrapper (so each one's calls are logged
 * and faulted apart), on a {@link TestClock}. Every case is listed below as a final method with a
 * line saying what it proves; its body is a scenario of one concept (store, read and verify,
 * transactions, deletions) in a package-private class of this package, so nothing is inherited
 * and nothing is hidden. Not thread-safe (JUnit runs one test per instance).
 */
public abstract class ArchiveStoreContract {

  @TempDir
  private Path temp;

  private @Nullable ArchiveFixture fixture;

  /** For subclasses. */
  protected ArchiveStoreContract() {}

  /**
   * {@return a fresh, empty datastore; called before each test and closed after it}
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  @BeforeEach
  final void openDatastore() throws Exception {
    Datastore created = createDatastore();
    fixture = new ArchiveFixture(created, temp);
    assertThat(created.list("")).as("createDatastore() must return an empty store").isEmpty();
  }

  @AfterEach
  final void closeDatastore() {
    ArchiveFixture current = fixture;
    fixture = null;
    if (current != null) {
      current.closeCheckouts();
      current.datastore().close();
    }
  }

  // Storing an archive (ArchiveStoreScenarios)

  /**
   * A new archive is written create-only, with its SHA-256 in the metadata, and its verified bytes are cached.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void store_newArchive_writesCreateOnlyAndCachesVerifiedBytes() throws IOException {
    stores().store_newArchive_writesCreateOnlyAndCachesVerifiedBytes();
  }

  /**
   * contains is one stat of the datastore: it answers for the tier, whatever the cache holds.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void contains_isOneStatOfTheDatastore_neverTheCache() throws IOException {
    stores().contains_isOneStatOfTheDatastore_neverTheCache();
  }

  /**
   * A second store of an archive already present writes nothing.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void store_twice_secondChangesNothing() throws IOException {
    stores().store_twice_secondChangesNothing();
  }

  /**
   * Bytes whose SHA-256 is not the key's are refused before any call, with nothing cached.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void store_bytesNotMatchingTheKey_refusedWithNothingCachedOrWritten() throws IOException {
    stores().store_bytesNotMatchingTheKey_refusedWithNothingCachedOrWritten();
  }

  /**
   * An archive over the compressed cap is refused before any call, with nothing cached.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void store_overTheCompressedCap_refusedWithNothingCachedOrWritten() throws IOException {
    stores().store_overTheCompressedCap_refusedWithNothingCachedOrWritten();
  }

  /**
   * Two checkouts storing one archive at once both succeed, and the datastore holds one object.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void store_concurrentlyFromTwoCheckouts_bothSucceedWithOneObject() throws Exception {
    stores().store_concurrentlyFromTwoCheckouts_bothSucceedWithOneObject();
  }

  /**
   * A store whose write answer is lost finds its object by a stat and writes nothing again.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void store_whenTheWriteAnswerIsLost_resolvesByStat() throws IOException {
    stores().store_whenTheWriteAnswerIsLost_resolvesByStat();
  }

  /**
   * An object of another size under the key is replaced by a write conditional on its version.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void store_overAnObjectOfAnotherSize_replacesItConditionally() throws IOException {
    stores().store_overAnObjectOfAnotherSize_replacesItConditionally();
  }

  /**
   * A namespace prefixes the archive's key and cache path once, and only that namespace's store finds it.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void store_underANamespace_bindsItOnceInKeyAndCache() throws IOException {
    stores().store_underANamespace_bindsItOnceInKeyAndCache();
  }

  // Reading and verifying an archive (ArchiveReadScenarios)

  /**
   * An archive one checkout stored is read by another with one download, then from its cache.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void read_archiveAPeerStored_restoresTheSameBytesFromTheDatastoreAlone() throws IOException {
    reads().read_archiveAPeerStored_restoresTheSameBytesFromTheDatastoreAlone();
  }

  /** A read of an archive nobody stored is empty and caches nothing. */
  @Test
  public final void read_absentArchive_returnsEmptyAndCachesNothing() {
    reads().read_absentArchive_returnsEmptyAndCachesNothing();
  }

  /**
   * Other bytes planted under the key fail the read as tampered, with nothing cached; storing again repairs it.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void read_tamperedObjectInTheDatastore_failsAndCachesNothing() throws IOException {
    reads().read_tamperedObjectInTheDatastore_failsAndCachesNothing();
  }

  /**
   * Bytes corrupted in flight fail the read as tampered, with nothing cached.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void read_bytesCorruptedInFlight_failsAndCachesNothing() throws IOException {
    reads().read_bytesCorruptedInFlight_failsAndCachesNothing();
  }

  /**
   * A cached file that no longer matches its key is fetched again from the datastore.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void read_badCachedFile_isRemovedAndFetchedAgain() throws IOException {
    reads().read_badCachedFile_isRemovedAndFetchedAgain();
  }

  /**
   * A downloaded copy a crash left empty or cut short (the cache does not force a copy the
   * datastore keeps) is fetched again, never served.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void read_downloadedCopyACrashCutShort_isFetchedAgain() throws IOException {
    reads().read_downloadedCopyACrashCutShort_isFetchedAgain();
  }

  /** An object over the compressed cap is refused before any byte of its body is read. */
  @Test
  public final void read_oversizeObject_refusedBeforeAnyBodyByteIsRead() {
    reads().read_oversizeObject_refusedBeforeAnyBodyByteIsRead();
  }

  /**
   * A download breaking off midway fails as unavailable, with nothing cached.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void read_downloadBreakingMidway_failsAsUnavailableAndCachesNothing() throws IOException {
    reads().read_downloadBreakingMidway_failsAsUnavailableAndCachesNothing();
  }

  /**
   * A read past its deadline fails with a timeout, with nothing cached.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void read_pastItsDeadline_failsAndCachesNothing() throws IOException {
    reads().read_pastItsDeadline_failsAndCachesNothing();
  }

  /**
   * An interrupted read fails as cancelled, keeps the thread's flag and caches nothing.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void read_interrupted_failsKeepsTheFlagAndCachesNothing() throws IOException {
    reads().read_interrupted_failsKeepsTheFlagAndCachesNothing();
  }

  // With the lockfile (ArchiveTransactionScenarios)

  /**
   * An install writes the archive before the lockfile, and a peer restores the same bytes from the tier alone.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void install_thenPeerRestore_restoresTheSameBytesFromTheTierAlone() throws IOException {
    transactions().install_thenPeerRestore_restoresTheSameBytesFromTheTierAlone();
  }

  /**
   * An install whose archive write fails publishes no entry and keeps nothing pending.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void install_whenTheArchiveWriteFails_publishesNoEntry() throws IOException {
    transactions().install_whenTheArchiveWriteFails_publishesNoEntry();
  }

  /**
   * An install whose lockfile publish fails keeps the archive, and the next run publishes the entry.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void install_whenTheLockfilePublishFails_keepsTheArchive_andTheReplayPublishesTheEntry() throws IOException {
    transactions().install_whenTheLockfilePublishFails_keepsTheArchive_andTheReplayPublishesTheEntry();
  }

  /**
   * Two checkouts installing one archive at once both succeed, with one object written.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void install_sameArchiveFromTwoCheckoutsAtOnce_bothSucceedWithOneObject() throws Exception {
    transactions().install_sameArchiveFromTwoCheckoutsAtOnce_bothSucceedWithOneObject();
  }

  /**
   * A restore of a tampered archive fails with nothing extracted and nothing cached.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void restore_tamperedArchiveInTheTier_failsWithNothingExtractedAndNothingCached() throws IOException {
    transactions().restore_tamperedArchiveInTheTier_failsWithNothingExtractedAndNothingCached();
  }

  /**
   * A staged copy replaced by a symbolic link is refused, and neither archive nor lockfile is written.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void install_stagedCopyTurnedIntoALink_isRefusedAndNothingTravels() throws IOException {
    transactions().install_stagedCopyTurnedIntoALink_isRefusedAndNothingTravels();
  }

  /**
   * Two checkouts on the datastore itself, with nothing in between, install, update, remove and
   * restore through one tier.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void installUpdateRemoveAndRestore_checkoutsOnTheUnwrappedDatastore_shareOneTier() throws IOException {
    transactions().installUpdateRemoveAndRestore_checkoutsOnTheUnwrappedDatastore_shareOneTier();
  }

  // Archives leaving the tier (ArchiveDeletionScenarios)

  /**
   * A delete is conditional on the version a stat saw, and removes the cached copy too.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void delete_storedArchive_deletesConditionallyOnTheVersionSeen() throws IOException {
    deletions().delete_storedArchive_deletesConditionallyOnTheVersionSeen();
  }

  /**
   * An object written again between the stat and the delete is kept.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void delete_whenReplacedMeanwhile_keepsTheObject() throws IOException {
    deletions().delete_whenReplacedMeanwhile_keepsTheObject();
  }

  /**
   * An update keeps the archive it supersedes (a collection judges it), and marks the pinning
   * change of both archives before the lockfile write.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void update_keepsTheSupersededArchive_andMarksItBeforeTheLockfilePublish() throws IOException {
    deletions().update_keepsTheSupersededArchive_andMarksItBeforeTheLockfilePublish();
  }

  /**
   * A remove keeps the archive it unpins, for a collection, and marks it before the lockfile write.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void remove_keepsTheArchive_forACollection() throws IOException {
    deletions().remove_keepsTheArchive_forACollection();
  }

  /**
   * A remove whose publish fails keeps the archive, and so does its replay.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void remove_whenTheLockfilePublishFails_keepsTheArchive_throughTheReplay() throws IOException {
    deletions().remove_whenTheLockfilePublishFails_keepsTheArchive_throughTheReplay();
  }

  /**
   * A superseded archive that a peer pins again meanwhile is kept.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void update_whenAPeerPinsTheSupersededArchiveAgain_keepsIt() throws IOException {
    deletions().update_whenAPeerPinsTheSupersededArchiveAgain_keepsIt();
  }

  private ArchiveFixture fixture() {
    ArchiveFixture current = fixture;
    if (current == null) {
      throw new IllegalStateException("Cannot use the archive contract's fixtures: no test is running");
    }
    return current;
  }

  private ArchiveStoreScenarios stores() {
    return new ArchiveStoreScenarios(fixture());
  }

  private ArchiveReadScenarios reads() {
    return new ArchiveReadScenarios(fixture());
  }

  private ArchiveTransactionScenarios transactions() {
    return new ArchiveTransactionScenarios(fixture());
  }

  private ArchiveDeletionScenarios deletions() {
    return new ArchiveDeletionScenarios(fixture());
  }
}
