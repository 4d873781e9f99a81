package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of the shared lockfile's fetch and publish on a datastore, as a transaction sees
 * them: observed through {@link dev.tierlock.Tierlock} on one fresh store per test, counted with a
 * {@link CountingDatastore} and logged by a {@link FaultyDatastore} around the store. A fetch is
 * one read of exactly the lockfile's key, in full the first time and conditional after that (a
 * not-modified answer transfers no body), and a cache that fails its digest is never believed; a
 * publish is conditional on the version fetched and carries its commit id and as much lineage as
 * the store's {@link Datastore#maxMetadataBytes()} holds; a lost answer is settled by the lineage.
 * A datastore module subclasses it in a few lines:
 *
 * <pre>{@code
 * class MyStoreSyncPortContractTest extends SyncPortContract {
 *   @Override protected Datastore createDatastore() { return MyStore.open(freshBucket()); }
 *   @Override protected Set<DatastoreFeature> features() { return EnumSet.noneOf(DatastoreFeature.class); }
 * }
 * }</pre>
 *
 * <p>Of the {@link DatastoreFeature}s, only {@link DatastoreFeature#NOT_MODIFIED_READS} matters
 * here: a store without it answers a warm fetch in full, which the contract then expects (one read
 * all the same). Every case is listed below as a final method; the bodies live in the
 * package-private {@code SyncPortScenarios}. The lineage case prints how many commit ids the store
 * keeps. Not thread-safe (JUnit runs one test per instance).
 */
public abstract class SyncPortContract {

  @TempDir
  @Nullable Path temp;

  private @Nullable TransactionFixture fixture;

  /** For subclasses. */
  protected SyncPortContract() {}

  /**
   * Returns a fresh, empty datastore (a new bucket, prefix or directory); called before each test
   * and closed after it.
   *
   * @return the store under test
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  /**
   * Returns the features the datastore under test has; all of them unless overridden.
   *
   * @return the declared features
   */
  protected Set<DatastoreFeature> features() {
    return EnumSet.allOf(DatastoreFeature.class);
  }

  @BeforeEach
  final void openFixture() throws Exception {
    if (temp == null) {
      throw new IllegalStateException("Cannot open the contract's fixture: JUnit gave no temp directory");
    }
    fixture = TransactionFixture.open(createDatastore(), temp);
  }

  @AfterEach
  final void closeFixture() {
    TransactionFixture open = fixture;
    fixture = null;
    if (open != null) {
      open.close();
    }
  }

  private WarmCommitScenarios warm() {
    TransactionFixture open = fixture;
    if (open == null) {
      throw new IllegalStateException("Cannot run a contract case: no test is running");
    }
    return new WarmCommitScenarios(open);
  }

  private SyncPortScenarios port() {
    TransactionFixture open = fixture;
    if (open == null) {
      throw new IllegalStateException("Cannot run a contract case: no test is running");
    }
    return new SyncPortScenarios(open, features());
  }

  // ---- Fetch ----------------------------------------------------------------------------------------

  /** A checkout's first fetch is one unconditional read; the cache holds the store's exact bytes. */
  @Test
  public final void theFirstFetch_readsInFull_andCachesTheExactBytes() {
    port().theFirstFetch_readsInFull_andCachesTheExactBytes();
  }

  /** A warm fetch is one read conditional on the cached version; not-modified transfers no body. */
  @Test
  public final void aWarmFetch_isOneConditionalRead_thatTransfersNoBody_alsoAfterARestart() {
    port().aWarmFetch_isOneConditionalRead_thatTransfersNoBody_alsoAfterARestart();
  }

  /** After a peer's publish, the conditional read brings the new bytes, and the cache takes them. */
  @Test
  public final void aFetchAfterAPeerPublished_readsTheNewBytes_andCachesThem() {
    port().aFetchAfterAPeerPublished_readsTheNewBytes_andCachesThem();
  }

  /** A lockfile deleted behind everyone's back reads as empty; the cache forgets it; the next publish creates it. */
  @Test
  public final void aFetchOfAnAbsentLockfile_isEmpty_andForgetsTheCache() {
    port().aFetchOfAnAbsentLockfile_isEmpty_andForgetsTheCache();
  }

  /**
   * A cached copy or record changed behind Tierlock's back is never believed: a full read.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void aDamagedCache_isNeverBelieved_butReadInFull() throws Exception {
    port().aDamagedCache_isNeverBelieved_butReadInFull();
  }

  /** A fetch that fails, or finds a lockfile that does not parse, leaves the cache as it was. */
  @Test
  public final void aFailedOrUnreadableFetch_keepsTheCache() {
    port().aFailedOrUnreadableFetch_keepsTheCache();
  }

  // ---- Publish --------------------------------------------------------------------------------------

  /** A publish is create-only or conditional on the version fetched, with its commit id and lineage. */
  @Test
  public final void aPublish_isConditionalOnTheVersionFetched_andCarriesItsCommitIdAndTheLineage() {
    port().aPublish_isConditionalOnTheVersionFetched_andCarriesItsCommitIdAndTheLineage();
  }

  /** After a long chain of commits, the stored lineage fills the store's metadata capacity (printed). */
  @Test
  public final void aLongChainOfCommits_keepsAsMuchLineageAsTheStoresMetadataHolds() {
    port().aLongChainOfCommits_keepsAsMuchLineageAsTheStoresMetadataHolds();
  }

  /** A version written by another tool carries no lineage, and the next commit starts a new one. */
  @Test
  public final void aWriteOfAnotherTool_startsANewLineage() {
    port().aWriteOfAnotherTool_startsANewLineage();
  }

  // ---- Lost answers ---------------------------------------------------------------------------------

  /** A lost answer with a working read-back resolves to landed, with one write. */
  @Test
  public final void aLostAnswerWithAWorkingReadBack_resolvesToLanded_withOneWrite() {
    port().aLostAnswerWithAWorkingReadBack_resolvesToLanded_withOneWrite();
  }

  /** A lost answer overtaken by another tool's write cannot be proven either way: outcome unknown until re-applied. */
  @Test
  public final void aLostAnswerOvertakenByAnotherToolsWrite_isAnUnknownOutcome_untilReapplied() {
    port().aLostAnswerOvertakenByAnotherToolsWrite_isAnUnknownOutcome_untilReapplied();
  }

  /** On a version without a commit id, "not landed" is proven only where versions never repeat. */
  @Test
  public final void aLostAnswerOnAnotherToolsVersion_isProvenAbsentOnlyWhereVersionsNeverRepeat() {
    port().aLostAnswerOnAnotherToolsVersion_isProvenAbsentOnlyWhereVersionsNeverRepeat();
  }

  // ---- Warm commits ---------------------------------------------------------------------------------

  /** An optimistic warm commit is one write conditional on the cached version, with no read, on every store. */
  @Test
  public final void anOptimisticWarmCommit_isOneWrite_conditionalOnTheCachedVersion() {
    warm().anOptimisticWarmCommit_isOneWrite_conditionalOnTheCachedVersion();
  }

  /** A warm commit that lands on bytes a peer put back never makes the peer's lost answer read "not landed". */
  @Test
  public final void aPeersLostAnswer_thenItsUndoing_thenAWarmCommit_neverPutsTheUndoneChangeBack() {
    warm().aPeersLostAnswer_thenItsUndoing_thenAWarmCommit_neverPutsTheUndoneChangeBack();
  }

  /** ... nor, once the bytes it was conditioned on are back, "not landed yet". */
  @Test
  public final void aPeersLostAnswer_thenItsUndoing_thenAWarmCommitUndoneToo_neverSendsTheUndoneChangeAgain() {
    warm().aPeersLostAnswer_thenItsUndoing_thenAWarmCommitUndoneToo_neverSendsTheUndoneChangeAgain();
  }

  /** A warm commit whose answer is lost after it landed on bytes a peer put back is published once. */
  @Test
  public final void aWarmCommitsLostAnswer_afterItLanded_overBytesAPeerPutBack_isPublishedOnce() {
    warm().aWarmCommitsLostAnswer_overBytesAPeerPutBack_isPublishedOnce(Fault.LOSE_RESPONSE);
  }

  /** A warm commit whose answer is lost before it landed on bytes a peer put back is sent again and published once. */
  @Test
  public final void aWarmCommitsLostAnswer_beforeItLanded_overBytesAPeerPutBack_isPublishedOnce() {
    warm().aWarmCommitsLostAnswer_overBytesAPeerPutBack_isPublishedOnce(Fault.TIMEOUT_BEFORE_APPLY);
  }
}
