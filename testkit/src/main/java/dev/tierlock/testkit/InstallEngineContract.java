package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of the install engine ({@link dev.tierlock.install.Installer}) on any {@link
 * Datastore}: checkouts sharing the datastore install, upgrade, restore and remove extensions
 * through a {@link FakeRegistry}, each into its own {@link TempDirLayout}. A datastore module
 * subclasses it and implements {@link #createDatastore()}:
 *
 * <pre>{@code
 * class MyStoreInstallEngineContractTest extends InstallEngineContract {
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
public abstract class InstallEngineContract {

  @TempDir
  private Path temp;

  private @Nullable InstallFixture fixture;

  /** For subclasses. */
  protected InstallEngineContract() {}

  /**
   * {@return a fresh, empty datastore; called before each test and closed after it}
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  @BeforeEach
  final void openDatastore() throws Exception {
    Datastore created = createDatastore();
    fixture = new InstallFixture(created, temp);
    assertThat(created.list("")).as("createDatastore() must return an empty store").isEmpty();
  }

  @AfterEach
  final void closeDatastore() {
    InstallFixture current = fixture;
    fixture = null;
    if (current != null) {
      current.close();
      current.datastore().close();
    }
  }

  private InstallScenarios scenarios() {
    return new InstallScenarios(fixture());
  }

  private InstallPinnedScenarios pinned() {
    return new InstallPinnedScenarios(fixture());
  }

  private InstallFixture fixture() {
    InstallFixture current = fixture;
    if (current == null) {
      throw new IllegalStateException("Cannot run an install case: no datastore is open");
    }
    return current;
  }

  /** An install from the registry swaps the files in, stores the archive, then publishes the entry pinning it. */
  @Test
  public final void install_fromTheRegistry_swapsTheFilesIn_recordsTheEntry_andStoresTheArchiveFirst() {
    scenarios().install_fromTheRegistry_swapsTheFilesIn_recordsTheEntry_andStoresTheArchiveFirst();
  }

  /** A peer restores the pinned extension from the tier alone: no registry call, with the registry offline. */
  @Test
  public final void restore_onAPeer_comesFromTheTierAlone_withTheRegistryOffline() {
    scenarios().restore_onAPeer_comesFromTheTierAlone_withTheRegistryOffline();
  }

  /** Without a registry and without the archive in the tier, an install is refused and changes nothing. */
  @Test
  public final void restore_withoutARegistry_andNoArchiveInTheTier_isRefused_andChangesNothing() {
    scenarios().restore_withoutARegistry_andNoArchiveInTheTier_isRefused_andChangesNothing();
  }

  /** An upgrade replaces the files (v1-only files are gone) and keeps the superseded archive for a collection. */
  @Test
  public final void upgrade_v1ToV2_replacesTheFiles_andKeepsTheSupersededArchiveForACollection() {
    scenarios().upgrade_v1ToV2_replacesTheFiles_andKeepsTheSupersededArchiveForACollection();
  }

  /** An upgrade whose catalog save fails is back at v1 file for file, and nothing is published. */
  @Test
  public final void upgrade_whoseCatalogSaveFails_isBackAtV1_fileForFile_andPublishesNothing() {
    scenarios().upgrade_whoseCatalogSaveFails_isBackAtV1_fileForFile_andPublishesNothing();
  }

  /** A removal saves the catalog first, then removes the entry and the files; the archive stays for a collection. */
  @Test
  public final void remove_takesTheCatalogThenTheEntryThenTheFiles_andKeepsTheArchive() {
    scenarios().remove_takesTheCatalogThenTheEntryThenTheFiles_andKeepsTheArchive();
  }

  /**
   * A tier archive whose bytes no longer match the pinned checksum is refused; nothing is swapped.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void restore_ofATamperedTierArchive_isRefused_andNothingIsSwapped() throws Exception {
    scenarios().restore_ofATamperedTierArchive_isRefused_andNothingIsSwapped();
  }

  /** Dependencies are installed as requests of their own, each pinned with its own checksum. */
  @Test
  public final void dependencies_areInstalledAsTheirOwnRequests_neverInheritingTheParentsChecksum() {
    scenarios().dependencies_areInstalledAsTheirOwnRequests_neverInheritingTheParentsChecksum();
  }

  /** A restore keeps the pinned entry's channel and pulledAt. */
  @Test
  public final void restore_keepsTheChannelAndPulledAt_ofThePinnedEntry() {
    scenarios().restore_keepsTheChannelAndPulledAt_ofThePinnedEntry();
  }

  /** IF_MISSING_CHECKSUM leaves a pinned entry as it is, NEVER writes nothing: the lockfile's bytes stay. */
  @Test
  public final void recordPolicies_ifMissingChecksumLeavesAPinnedEntry_andNeverWritesNothing() {
    scenarios().recordPolicies_ifMissingChecksumLeavesAPinnedEntry_andNeverWritesNothing();
  }

  /** A nested extension neither makes its outer one look edited nor is lost by the outer's upgrade. */
  @Test
  public final void aNestedExtension_isSwappedWithoutTheOuter_andLeavesTheOutersDigestUnchanged() {
    scenarios().aNestedExtension_isSwappedWithoutTheOuter_andLeavesTheOutersDigestUnchanged();
  }

  /**
   * Two checkouts installing different extensions at once both land, and each is whole.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void twoCheckouts_installingAtOnce_bothLand_andNothingIsTorn() throws Exception {
    scenarios().twoCheckouts_installingAtOnce_bothLand_andNothingIsTorn();
  }

  /** A release whose registry states no checksum is installed but never stored, and its entry pins nothing. */
  @Test
  public final void aReleaseWithoutAStatedChecksum_isInstalled_butNeverStored_norPinned() {
    scenarios().aReleaseWithoutAStatedChecksum_isInstalled_butNeverStored_norPinned();
  }

  /**
   * The installed listing tells matches, edited, missing and unrecorded apart.
   *
   * @throws Exception if a store cannot be created, or a thread of the test fails or is interrupted
   */
  @Test
  public final void installed_tellsMatchesEditedOtherVersionMissingAndUnrecorded() throws Exception {
    scenarios().installed_tellsMatchesEditedOtherVersionMissingAndUnrecorded();
  }

  /** An install swapped but not committed makes a second install of that extension busy, until it commits. */
  @Test
  public final void anInstallInFlight_makesASecondOfTheSameExtensionBusy_untilItCommits() {
    scenarios().anInstallInFlight_makesASecondOfTheSameExtensionBusy_untilItCommits();
  }

  /** Apply needs the pulled-extensions lock; a pending install commits after its run and rolls back inside it. */
  @Test
  public final void aPendingInstall_isCommittedOnlyAfterItsRun_andRolledBackOnlyInsideIt() {
    scenarios().aPendingInstall_isCommittedOnlyAfterItsRun_andRolledBackOnlyInsideIt();
  }

  /** Bundle roots are installed, rolled back, upgraded and removed together with their extension. */
  @Test
  public final void bundleRoots_areSwappedWithTheExtension_andComeBackOnRollback() {
    scenarios().bundleRoots_areSwappedWithTheExtension_andComeBackOnRollback();
  }

  // Everything the lockfile pins, and the backfill of the tier's archives (InstallPinnedScenarios)

  /**
   * installPinned restores from the tier with no registry call, else the registry, and stores the archive the tier lacked.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void installPinned_restoresFromTheTierFirst_thenTheRegistry_andBackfillsTheArchiveTheTierLacks()
      throws IOException {
    pinned().installPinned_restoresFromTheTierFirst_thenTheRegistry_andBackfillsTheArchiveTheTierLacks();
  }

  /**
   * The backfill of a constraint pin (^1) asks the registry for the installed version exactly.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void installPinned_backfillsAConstraintPin_atTheInstalledVersionExactly() throws IOException {
    pinned().installPinned_backfillsAConstraintPin_atTheInstalledVersionExactly();
  }

  /** Registry bytes other than the pinned ones, or with no stated checksum, are never stored, and each is reported. */
  @Test
  public final void installPinned_neverStoresBytesOtherThanPinned_norUnstatedOnes_andReportsEach() {
    pinned().installPinned_neverStoresBytesOtherThanPinned_norUnstatedOnes_andReportsEach();
  }

  /** Without a registry, installPinned restores from the tier alone and reports each backfill skipped. */
  @Test
  public final void installPinned_withoutARegistry_restoresFromTheTier_andReportsTheBackfillSkipped() {
    pinned().installPinned_withoutARegistry_restoresFromTheTier_andReportsTheBackfillSkipped();
  }

  /**
   * installPinned leaves an edited extension as it is, and an entry without a checksum gains one with its archive.
   *
   * @throws IOException if a file the test uses cannot be read or written
   */
  @Test
  public final void installPinned_leavesAnEditedExtension_andGivesAnEntryWithoutAChecksumOne() throws IOException {
    pinned().installPinned_leavesAnEditedExtension_andGivesAnEntryWithoutAChecksumOne();
  }

  /** Converge mode restores what the lockfile pins from the tier alone and never writes the lockfile or the tier. */
  @Test
  public final void convergeMode_restoresThePinFromTheTierAlone_andNeverWritesTheLockfile() {
    scenarios().convergeMode_restoresThePinFromTheTierAlone_andNeverWritesTheLockfile();
  }
}
