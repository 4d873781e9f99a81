package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Datastore} passes: the semantics the SPI's Javadoc promises, checked on
 * a fresh, empty store per test. A datastore module subclasses it and implements two hooks, {@link
 * #createDatastore()} and {@link #features()}:
 *
 * <pre>{@code
 * class MyStoreDatastoreContractTest extends DatastoreContract {
 *   @TempDir Path dir;
 *
 *   @Override protected Datastore createDatastore() {
 *     return MyStore.open(dir.resolve(UUID.randomUUID().toString()));   // a store of its own each call
 *   }
 *
 *   @Override protected Set<DatastoreFeature> features() {
 *     return EnumSet.complementOf(EnumSet.of(DatastoreFeature.DELETE_REPORTS_ABSENT));
 *   }
 * }
 * }</pre>
 *
 * <p>Every case is listed below as a final method with a line saying what it proves; its body is a
 * scenario of one concept (reads, writes, deletes, listings, metadata, limits, identity, races) in
 * a package-private class of this package, so nothing is inherited and nothing is hidden. A
 * feature the subclass does not declare is tested for its documented fallback (see {@link
 * DatastoreFeature}), never skipped. The whole contract takes well under 5 s on {@link
 * FakeRemote}. Not thread-safe (JUnit runs one test per instance).
 */
public abstract class DatastoreContract {

  private @Nullable DatastoreSteps steps;

  /** For subclasses. */
  protected DatastoreContract() {}

  /**
   * {@return a fresh, empty datastore (a new bucket, prefix or directory); called before each test
   * and closed after it} The identity test calls it a second time within one test: each call must
   * return a store of its own (another bucket, prefix or directory), never a second instance over
   * the first one's objects.
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  /**
   * {@return the optional features the datastore under test has (called once per test)} Declare
   * exactly what the store does: a declared feature is tested in full, an absent one for its
   * documented fallback, so declaring too few fails as surely as declaring too many.
   */
  protected abstract Set<DatastoreFeature> features();

  @BeforeEach
  final void openDatastore() throws Exception {
    Datastore created = createDatastore();
    steps = new DatastoreSteps(created, features());
    assertThat(created.list("")).as("createDatastore() must return an empty store").isEmpty();
  }

  @AfterEach
  final void closeDatastore() {
    DatastoreSteps current = steps;
    steps = null;
    if (current != null) {
      current.store().close();
    }
  }

  // Reads, conditional reads, downloads and stats (DatastoreReadScenarios)

  /** A key never written is absent to read, stat and listing. */
  @Test
  public final void read_absentKey_reportsAbsent() {
    reads().read_absentKey_reportsAbsent();
  }

  /** An empty object reads back as zero bytes at its version. */
  @Test
  public final void read_emptyObject_returnsNoBytes() {
    reads().read_emptyObject_returnsNoBytes();
  }

  /** A read conditional on the current version answers not-modified, or (fallback) the same version and bytes. */
  @Test
  public final void read_ifNoneMatchCurrentVersion_reportsNotModified() {
    reads().read_ifNoneMatchCurrentVersion_reportsNotModified();
  }

  /** A read conditional on a superseded version returns the current bytes and version. */
  @Test
  public final void read_ifNoneMatchStaleVersion_returnsCurrentObject() {
    reads().read_ifNoneMatchStaleVersion_returnsCurrentObject();
  }

  /** A read conditional on the version of a deleted object reports absent. */
  @Test
  public final void read_ifNoneMatchOnDeletedKey_reportsAbsent() {
    reads().read_ifNoneMatchOnDeletedKey_reportsAbsent();
  }

  /**
   * A 3 MiB download knows its size before the first byte and yields the bytes written.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void openStream_largeObject_knowsSizeFirstAndYieldsSameBytes() throws IOException {
    reads().openStream_largeObject_knowsSizeFirstAndYieldsSameBytes();
  }

  /** A download of a missing key is empty. */
  @Test
  public final void openStream_absentKey_returnsEmpty() {
    reads().openStream_absentKey_returnsEmpty();
  }

  /**
   * A download after a replace yields the new version and bytes.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void openStream_afterReplace_yieldsTheNewVersion() throws IOException {
    reads().openStream_afterReplace_yieldsTheNewVersion();
  }

  /** A stat reports every create, replace and delete at once. */
  @Test
  public final void stat_followsEveryChange() {
    reads().stat_followsEveryChange();
  }

  // Writes and their preconditions (DatastoreWriteScenarios)

  /** A create-only write on a free key creates the object, with empty metadata. */
  @Test
  public final void write_mustNotExistOnFreeKey_createsObjectWithEmptyMetadata() {
    writes().write_mustNotExistOnFreeKey_createsObjectWithEmptyMetadata();
  }

  /** A second create-only write of one key fails and keeps the first object. */
  @Test
  public final void write_mustNotExistTwice_secondFailsAndKeepsFirst() {
    writes().write_mustNotExistTwice_secondFailsAndKeepsFirst();
  }

  /** A write conditional on the current version replaces the object under a new version. */
  @Test
  public final void write_mustMatchCurrentVersion_replacesWithNewVersion() {
    writes().write_mustMatchCurrentVersion_replacesWithNewVersion();
  }

  /** A write conditional on a superseded version fails and changes nothing. */
  @Test
  public final void write_mustMatchStaleVersion_failsAndKeepsContent() {
    writes().write_mustMatchStaleVersion_failsAndKeepsContent();
  }

  /** A write conditional on a version of a missing key (deleted, or another key's) fails and creates nothing. */
  @Test
  public final void write_mustMatchOnMissingKey_failsAndCreatesNothing() {
    writes().write_mustMatchOnMissingKey_failsAndCreatesNothing();
  }

  /** Unconditional writes create and overwrite, each under a new version; the last one stays. */
  @Test
  public final void write_unconditional_lastWriterWins() {
    writes().write_unconditional_lastWriterWins();
  }

  /** Five writes give five versions, and none of the four old ones matches any more. */
  @Test
  public final void write_everyWrite_producesANewVersion() {
    writes().write_everyWrite_producesANewVersion();
  }

  /** A deleted key can be created again, and the deleted version never matches. */
  @Test
  public final void write_afterDelete_createsAgainWithMustNotExist() {
    writes().write_afterDelete_createsAgainWithMustNotExist();
  }

  // Deletes (DatastoreDeleteScenarios)

  /** An unconditional delete removes the object from read, stat, download and listing. */
  @Test
  public final void delete_unconditional_removesObject() {
    deletes().delete_unconditional_removesObject();
  }

  /** An unconditional delete of a missing key reports absent (or, fallback, deleted) and touches no other key. */
  @Test
  public final void delete_unconditionalOnMissingKey_changesNothing() {
    deletes().delete_unconditionalOnMissingKey_changesNothing();
  }

  /** A delete conditional on the current version deletes, or (fallback) is refused as unsafe. */
  @Test
  public final void delete_mustMatchCurrentVersion_deletes() {
    deletes().delete_mustMatchCurrentVersion_deletes();
  }

  /** A delete conditional on a superseded version fails (or is refused) and keeps the object. */
  @Test
  public final void delete_mustMatchStaleVersion_failsAndKeepsObject() {
    deletes().delete_mustMatchStaleVersion_failsAndKeepsObject();
  }

  /** A delete conditional on the version of a deleted object reports absent (or is refused). */
  @Test
  public final void delete_mustMatchOnMissingKey_reportsAbsent() {
    deletes().delete_mustMatchOnMissingKey_reportsAbsent();
  }

  /** A delete conditional on {@code mustNotExist} is refused and deletes nothing. */
  @Test
  public final void delete_mustNotExist_throwsAndDeletesNothing() {
    deletes().delete_mustNotExist_throwsAndDeletesNothing();
  }

  // Listings and key spellings (DatastoreListingScenarios)

  /** A fresh store lists nothing. */
  @Test
  public final void list_emptyStore_returnsNothing() {
    listings().list_emptyStore_returnsNothing();
  }

  /** A prefix lists the nested keys below it, sorted, each as its stat reports it. */
  @Test
  public final void list_prefix_returnsNestedKeysSortedWithTheirStat() {
    listings().list_prefix_returnsNestedKeysSortedWithTheirStat();
  }

  /** A prefix matches keys by text, also inside a path segment. */
  @Test
  public final void list_prefixInsideASegment_matchesByText() {
    listings().list_prefixInsideASegment_matchesByText();
  }

  /** The empty prefix lists every object, sorted, with its version and size. */
  @Test
  public final void list_emptyPrefix_returnsEveryObjectSortedWithVersions() {
    listings().list_emptyPrefix_returnsEveryObjectSortedWithVersions();
  }

  /** A key that is also a prefix of other keys is stored, or (fallback) refused with nothing changed. */
  @Test
  public final void write_keyThatIsAlsoAPrefix_isStoredOrRefusedAsDeclared() {
    listings().write_keyThatIsAlsoAPrefix_isStoredOrRefusedAsDeclared();
  }

  /** An invalid prefix is refused with a message naming it. */
  @Test
  public final void list_invalidPrefix_throwsAndNamesIt() {
    listings().list_invalidPrefix_throwsAndNamesIt();
  }

  /** 1,100 objects (60 without paging at scale) are all listed, in order. */
  @Test
  public final void list_manyObjects_returnsEveryObjectInOrder() {
    listings().list_manyObjects_returnsEveryObjectInOrder();
  }

  /** Keys with {@code @}, spaces, punctuation and unicode are written, read, listed and deleted as spelled. */
  @Test
  public final void write_keysWithAtSignsSpacesAndUnicode_roundTrip() {
    listings().write_keysWithAtSignsSpacesAndUnicode_roundTrip();
  }

  // User metadata (DatastoreMetadataScenarios)

  /**
   * User metadata comes back from read, stat, listing and download, or (fallback) is refused.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void write_withMetadata_roundTripsEverywhere() throws IOException {
    metadata().write_withMetadata_roundTripsEverywhere();
  }

  /** Each write replaces all the old metadata, or (fallback) metadata is refused. */
  @Test
  public final void write_newMetadata_replacesEveryOldEntry() {
    metadata().write_newMetadata_replacesEveryOldEntry();
  }

  /**
   * Every view reports the store's own time of an object's last write, alike to the second and
   * never going back across writes (or, without {@link DatastoreFeature#MODIFICATION_TIMES}, none).
   *
   * @throws IOException if a download fails to close
   */
  @Test
  public final void modified_isTheStoresTimeOfEachWrite_inEveryView() throws IOException {
    metadata().modified_isTheStoresTimeOfEachWrite_inEveryView();
  }

  // Limits: read bounds and metadata capacity (DatastoreLimitScenarios)

  /** A read over the caller's bound throws {@link dev.tierlock.spi.ObjectTooLargeException} and changes nothing. */
  @Test
  public final void read_objectLargerThanTheBound_throwsObjectTooLargeAndChangesNothing() {
    limits().read_objectLargerThanTheBound_throwsObjectTooLargeAndChangesNothing();
  }

  /** A read bound that is not positive is refused. */
  @Test
  public final void read_withABoundThatIsNotPositive_isRefused() {
    limits().read_withABoundThatIsNotPositive_isRefused();
  }

  /** Metadata larger than {@link Datastore#maxMetadataBytes()} is refused and nothing is written. */
  @Test
  public final void write_metadataOverTheStoreCapacity_isRefusedAndChangesNothing() {
    limits().write_metadataOverTheStoreCapacity_isRefusedAndChangesNothing();
  }

  /**
   * Metadata of exactly {@link Datastore#maxMetadataBytes()} round-trips.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void write_metadataOfExactlyTheStoreCapacity_roundTrips() throws IOException {
    limits().write_metadataOfExactlyTheStoreCapacity_roundTrips();
  }

  // Identity (DatastoreIdentityScenarios)

  /** The description names the store as a URI. */
  @Test
  public final void describe_namesTheStoreAsAUri() {
    identity().describe_namesTheStoreAsAUri();
  }

  /**
   * The identity is stable across calls and writes, and differs between two fresh stores.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void identity_isStableAndDiffersBetweenTwoFreshStores() throws Exception {
    identity().identity_isStableAndDiffersBetweenTwoFreshStores(this::createDatastore);
  }

  // Races of 8 threads (DatastoreRaceScenarios)

  /** Of 8 racing create-only writes exactly one wins, in each of 3 rounds. */
  @Test
  public final void write_mustNotExistRace_exactlyOneWinner() {
    races().write_mustNotExistRace_exactlyOneWinner();
  }

  /** Of 8 racing writes conditional on one version exactly one wins, in each of 3 rounds. */
  @Test
  public final void write_mustMatchRace_exactlyOneWinner() {
    races().write_mustMatchRace_exactlyOneWinner();
  }

  /**
   * Of 8 racing deletes conditional on one version exactly one deletes, or (fallback) conditional
   * deletes are refused.
   */
  @Test
  public final void delete_mustMatchRace_exactlyOneWinner() {
    races().delete_mustMatchRace_exactlyOneWinner();
  }

  private DatastoreSteps steps() {
    DatastoreSteps current = steps;
    if (current == null) {
      throw new IllegalStateException("Cannot use the datastore under test: no test is running");
    }
    return current;
  }

  private DatastoreReadScenarios reads() {
    return new DatastoreReadScenarios(steps());
  }

  private DatastoreWriteScenarios writes() {
    return new DatastoreWriteScenarios(steps());
  }

  private DatastoreDeleteScenarios deletes() {
    return new DatastoreDeleteScenarios(steps());
  }

  private DatastoreListingScenarios listings() {
    return new DatastoreListingScenarios(steps());
  }

  private DatastoreMetadataScenarios metadata() {
    return new DatastoreMetadataScenarios(steps());
  }

  private DatastoreLimitScenarios limits() {
    return new DatastoreLimitScenarios(steps());
  }

  private DatastoreIdentityScenarios identity() {
    return new DatastoreIdentityScenarios(steps());
  }

  private DatastoreRaceScenarios races() {
    return new DatastoreRaceScenarios(steps());
  }
}
