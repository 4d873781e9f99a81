package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of convergence ({@link dev.tierlock.install.Converger}) on any {@link Datastore}:
 * a checkout that installs through a {@link FakeRegistry} and peers that converge to the shared
 * lockfile from the tier alone, each in its own {@link TempDirLayout}, on one {@link TestClock}. A
 * datastore module subclasses it and implements {@link #createDatastore()}:
 *
 * <pre>{@code
 * class MyStoreConvergeContractTest extends ConvergeContract {
 *   @TempDir Path dir;
 *
 *   @Override protected Datastore createDatastore() {
 *     return MyStore.open(dir.resolve("tier"));   // fresh and empty for every test
 *   }
 * }
 * }</pre>
 *
 * <p>Every case is a final method with a line saying what it proves; its body is in a
 * package-private scenarios class. Not thread-safe (JUnit runs one test per instance).
 */
public abstract class ConvergeContract {

  @TempDir
  private Path temp;

  private @Nullable ConvergeFixture fixture;

  /** For subclasses. */
  protected ConvergeContract() {}

  /**
   * Returns a fresh, empty datastore; called before each test and closed after it.
   *
   * @return the datastore
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  @BeforeEach
  final void openDatastore() throws Exception {
    Datastore created = createDatastore();
    fixture = new ConvergeFixture(created, temp);
    assertThat(created.list("")).as("createDatastore() must return an empty store").isEmpty();
  }

  @AfterEach
  final void closeDatastore() {
    ConvergeFixture current = fixture;
    fixture = null;
    if (current != null) {
      current.close();
      current.datastore().close();
    }
  }

  private ConvergeFixture current() {
    ConvergeFixture current = fixture;
    if (current == null) {
      throw new IllegalStateException("Cannot run a convergence case: no datastore is open");
    }
    return current;
  }

  private ConvergeScenarios scenarios() {
    return new ConvergeScenarios(current(), getClass().getSimpleName());
  }

  private ConvergeFailureScenarios failures() {
    return new ConvergeFailureScenarios(current());
  }

  /** A peer with no registry converges byte for byte; after an upgrade and a removal it touches only those two. */
  @Test
  public final void aPeerWithoutARegistry_convergesByteForByte_thenTouchesOnlyWhatChanged() {
    scenarios().aPeerWithoutARegistry_convergesByteForByte_thenTouchesOnlyWhatChanged();
  }

  /** A no-op pass on a 1,000-entry lockfile costs at most one request and no body; a known version costs none. */
  @Test
  public final void aNoOpPass_onAThousandEntryLockfile_costsOneRequest_andNoBody() {
    scenarios().aNoOpPass_onAThousandEntryLockfile_costsOneRequest_andNoBody();
  }

  /** A failed archive read is pending 45 to 60 s, skipped until due, then retried with waits doubling up to 1 h. */
  @Test
  public final void aTransientArchiveFailure_isPending_andRetriedWithBackoff_doublingUpToAnHour() {
    failures().aTransientArchiveFailure_isPending_andRetriedWithBackoff_doublingUpToAnHour();
  }

  /** An archive missing from the tier is unrestorable, never retried as hours pass, and restored by a full pass. */
  @Test
  public final void aMissingTierArchive_isUnrestorable_andNotRetried_untilAFullPass() {
    failures().aMissingTierArchive_isUnrestorable_andNotRetried_untilAFullPass();
  }

  /** An entry unrestorable for a missing archive is restored once its lockfile entry changes. */
  @Test
  public final void aMissingTierArchive_isRestored_onceItsEntryChanges() {
    failures().aMissingTierArchive_isRestored_onceItsEntryChanges();
  }

  /** A tier archive whose bytes no longer match its checksum is unrestorable, and the old files stay untouched. */
  @Test
  public final void aTamperedTierArchive_isUnrestorable_andNothingIsSwapped() {
    failures().aTamperedTierArchive_isUnrestorable_andNothingIsSwapped();
  }

  /**
   * A same-version local edit is kept with a warning; the same version with another checksum is restored.
   *
   * @throws Exception if the test cannot set up its checkouts, files or child processes
   */
  @Test
  public final void aSameVersionLocalEdit_survivesWithAWarning_butAChangedChecksumIsRestored() throws Exception {
    scenarios().aSameVersionLocalEdit_survivesWithAWarning_butAChangedChecksumIsRestored();
  }

  /**
   * Skill files edited or added on a peer never make it restore, and are never rewritten.
   *
   * @throws Exception if the test cannot set up its checkouts, files or child processes
   */
  @Test
  public final void skillFiles_editedOrAddedOnAPeer_neverTriggerARestore() throws Exception {
    scenarios().skillFiles_editedOrAddedOnAPeer_neverTriggerARestore();
  }

  /** A nested extension converges without making its outer one look edited, and survives the outer's restore. */
  @Test
  public final void aNestedExtension_convergesWithoutMakingItsOuterLookEdited() {
    scenarios().aNestedExtension_convergesWithoutMakingItsOuterLookEdited();
  }

  /** Two checkouts with different skill layouts, installing and converging in turn, never restore after round one. */
  @Test
  public final void checkoutsWithDifferentSkillLayouts_neverSwapEachOthersFilesBackAndForth() {
    scenarios().checkoutsWithDifferentSkillLayouts_neverSwapEachOthersFilesBackAndForth();
  }

  /** Restores, removals, retries and full passes never call the registry nor write the lockfile or the tier. */
  @Test
  public final void convergence_neverCallsTheRegistry_andNeverWritesTheLockfileOrTheTier() {
    scenarios().convergence_neverCallsTheRegistry_andNeverWritesTheLockfileOrTheTier();
  }

  /**
   * A pass while an install holds the pulled-extensions lock is BUSY at once, swaps nothing; the next converges.
   *
   * @throws Exception if the test cannot set up its checkouts, files or child processes
   */
  @Test
  public final void aPassWhileTheCheckoutIsBusy_isBusyAtOnce_swapsNothing_andTheNextPassConverges() throws Exception {
    failures().aPassWhileTheCheckoutIsBusy_isBusyAtOnce_swapsNothing_andTheNextPassConverges();
  }

  /**
   * An extension the lockfile dropped is removed, unless edited locally: then it is kept with a warning.
   *
   * @throws Exception if the test cannot set up its checkouts, files or child processes
   */
  @Test
  public final void anExtensionDroppedFromTheLockfile_isRemoved_unlessEditedLocally_thenKeptWithAWarning()
      throws Exception {
    scenarios().anExtensionDroppedFromTheLockfile_isRemoved_unlessEditedLocally_thenKeptWithAWarning();
  }

  /** No lockfile, an unreadable one and a failed read are outcomes of their own, and touch no file. */
  @Test
  public final void aPassWithoutAReadableLockfile_isReportedAsSuch_andTouchesNothing() {
    failures().aPassWithoutAReadableLockfile_isReportedAsSuch_andTouchesNothing();
  }
}
