package dev.tierlock.install;

import static dev.tierlock.install.SwapFixture.exists;
import static dev.tierlock.install.SwapFixture.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.internal.AtomicFileWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SwapTest {

  @TempDir
  Path dir;

  private final OwnerIds owners = new OwnerIds();

  private SwapFixture fixture() {
    return new SwapFixture(dir.resolve("checkout"));
  }

  private SortedMap<String, String> expectedV2() throws IOException {
    return new SwapFixture(Files.createTempDirectory(dir, "expected-v2")).expectedV2().snapshot();
  }

  @Test
  void upgrade_commitLeavesV2AndRollbackPutsV1BackByteForByte() throws IOException {
    SwapFixture committed = new SwapFixture(dir.resolve("committed")).installV1().sourcesV2();
    Swap swap = Swap.stage(committed.upgrade(), committed.layout, owners, SwapBoundary.NONE);
    swap.swap();
    swap.commit();
    assertThat(committed.snapshot()).isEqualTo(expectedV2());
    assertThat(committed.snapshot()).doesNotContainKeys("pulled/@acme/tools/lib/v1-only.txt",
        "bundles/models/tools/v1-only.js");
    assertThat(committed.stagingLeft()).isEmpty();
    assertThat(owners.isActive(SwapFixture.OWNER)).isFalse();

    SwapFixture rolled = fixture().installV1().sourcesV2();
    SortedMap<String, String> v1 = rolled.snapshot();
    Swap again = Swap.stage(rolled.upgrade(), rolled.layout, owners, SwapBoundary.NONE);
    again.swap();
    assertThat(rolled.snapshot()).isEqualTo(expectedV2());
    again.rollback();
    assertThat(rolled.snapshot()).isEqualTo(v1).containsKeys("pulled/@acme/tools/lib/v1-only.txt",
        "bundles/models/tools/v1-only.js");
    assertThat(rolled.stagingLeft()).isEmpty();
    assertThat(owners.isActive(SwapFixture.OWNER)).isFalse();
  }

  @Test
  void install_freshPutsTheNewRootsInAndRollbackLeavesNothing() throws IOException {
    SwapFixture fixture = fixture().sourcesV2();
    Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners, SwapBoundary.NONE);
    assertThat(swap.journal().roots()).extracting(InstallJournal.Root::liveExisted).containsExactly(false, false);
    swap.swap();
    swap.commit();
    assertThat(fixture.snapshot()).containsEntry("pulled/@acme/tools/manifest.json",
        "f:{\"name\":\"@acme/tools\",\"version\":\"2\"}").containsEntry("bundles/models/tools/b.js", "f:bundle of v2")
        .doesNotContainKey("pulled/@acme/tools/sub");
    assertThat(fixture.stagingLeft()).isEmpty();

    SwapFixture rolled = new SwapFixture(dir.resolve("rolled")).sourcesV2();
    Swap again = Swap.stage(rolled.upgrade(), rolled.layout, owners, SwapBoundary.NONE);
    again.swap();
    again.rollback();
    assertThat(rolled.snapshot()).containsOnlyKeys("bundles", "bundles/models", "pulled");
    assertThat(rolled.stagingLeft()).isEmpty();
  }

  @Test
  void stage_makesOnlyTheStagingDirectoriesTheSwapNeeds_andARollbackMakesDiscardWhenItNeedsIt() throws IOException {
    SwapFixture fresh = new SwapFixture(dir.resolve("fresh")).sourcesV2();
    Swap install = Swap.stage(fresh.upgrade(), fresh.layout, owners, SwapBoundary.NONE);
    for (InstallJournal.Root root : install.journal().roots()) {
      assertThat(root.incoming().getParent()).as("new content waits in new/").isDirectory();
      assertThat(root.old().getParent()).as("nothing live to move out: no old/").doesNotExist();
      assertThat(root.discard().getParent()).as("discard/ only for a rollback").doesNotExist();
    }
    install.swap();
    install.rollback();
    assertThat(fresh.snapshot()).containsOnlyKeys("bundles", "bundles/models", "pulled");
    assertThat(fresh.stagingLeft()).isEmpty();

    SwapFixture upgraded = new SwapFixture(dir.resolve("upgraded")).installV1().sourcesV2();
    SortedMap<String, String> v1 = upgraded.snapshot();
    Swap upgrade = Swap.stage(upgraded.upgrade(), upgraded.layout, owners, SwapBoundary.NONE);
    InstallJournal.Root extension = upgrade.journal().extensionRoot();
    assertThat(extension.old().getParent()).as("live content to move out: old/").isDirectory();
    assertThat(extension.discard().getParent()).doesNotExist();
    upgrade.swap();
    upgrade.rollback();
    assertThat(upgraded.snapshot()).isEqualTo(v1);
    assertThat(upgraded.stagingLeft()).isEmpty();
  }

  @Test
  void commit_thatDeletesTheJournalButCannotForceItsDirectory_saysSo_andIsCommitted() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners, SwapBoundary.NONE);
    swap.swap();
    Path journal = StagingPaths.journal(fixture.layout, swap.journal().stagingId());

    Thread.currentThread().interrupt();  // forcing a directory through a channel then fails
    try {
      assertThatThrownBy(swap::commit).isInstanceOf(InstallException.class)
          .hasMessageContaining("deleted the journal").hasMessageNotContaining("nothing was deleted");
    } finally {
      Thread.interrupted();
    }

    assertThat(journal).doesNotExist();
    assertThatThrownBy(swap::rollback).as("decided: the new version stays").isInstanceOf(IllegalStateException.class);
    assertThat(fixture.snapshot()).containsEntry("pulled/@acme/tools/manifest.json",
        "f:{\"name\":\"@acme/tools\",\"version\":\"2\"}");
  }

  @Test
  void removal_keepsTheNestedRootAndRollbackRestoresEverything() throws IOException {
    SwapFixture fixture = fixture().installV1();
    SortedMap<String, String> v1 = fixture.snapshot();
    Swap swap = Swap.stage(fixture.removal(), fixture.layout, owners, SwapBoundary.NONE);
    swap.swap();
    assertThat(fixture.snapshot()).isEqualTo(new SwapFixture(dir.resolve("expected")).expectedRemoved().snapshot());
    swap.rollback();
    assertThat(fixture.snapshot()).isEqualTo(v1);

    Swap again = Swap.stage(fixture.removal(), fixture.layout, owners, SwapBoundary.NONE);
    again.swap();
    again.commit();
    assertThat(fixture.snapshot()).isEqualTo(new SwapFixture(dir.resolve("expected")).snapshot());
    assertThat(fixture.stagingLeft()).isEmpty();
  }

  @Test
  void removal_deletesTheScopeDirectoryItEmptied() throws IOException {
    Path pulled = dir.resolve("pulled");
    ExtensionName solo = ExtensionName.of("@solo/only");
    SwapFixture.Layout layout = new SwapFixture.Layout(pulled, Map.of());
    write(pulled.resolve("@solo/only/manifest.json"), "{}");
    Swap swap = Swap.stage(new SwapPlan(solo, SwapFixture.OWNER, SwapFixture.STAGING, "/repo/lock.json", null,
        List.of(new SwapRoot(SwapRoot.Role.EXTENSION, pulled.resolve("@solo/only"), null)), "manifest.json",
        List.of()), layout, owners, SwapBoundary.NONE);
    swap.swap();
    assertThat(pulled.resolve("@solo")).isEmptyDirectory();
    swap.commit();
    assertThat(pulled.resolve("@solo")).doesNotExist();
    assertThat(pulled).isDirectory();
  }

  @Test
  void upgrade_bundleRootTheNewVersionLacksGoesAndComesBack() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    SortedMap<String, String> v1 = fixture.snapshot();
    Swap swap = Swap.stage(fixture.plan(SwapFixture.V2_SUM, fixture.extSource(), null), fixture.layout, owners,
        SwapBoundary.NONE);
    swap.swap();
    assertThat(fixture.bundle).doesNotExist();
    swap.rollback();
    assertThat(fixture.snapshot()).isEqualTo(v1);
  }

  @Test
  void upgrade_carriesTheNestedRootOverUnchanged() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    SortedMap<String, String> nested = SwapFixture.under(fixture.snapshot(), "pulled/@acme/tools/sub");
    Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners, SwapBoundary.NONE);
    assertThat(swap.journal().nestedRoots()).containsExactly(new InstallJournal.Nested(SwapFixture.NESTED));
    swap.swap();
    swap.commit();
    assertThat(SwapFixture.under(fixture.snapshot(), "pulled/@acme/tools/sub")).isEqualTo(nested)
        .containsEntry("pulled/@acme/tools/sub/link", "l:deep/s.txt").hasSize(5);
  }

  @Test
  void stage_refusesNewContentHoldingANestedExtensionsRoot() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    write(fixture.extSource().resolve("sub/x.txt"), "clash");
    SortedMap<String, String> v1 = fixture.snapshot();
    assertThatThrownBy(() -> Swap.stage(fixture.upgrade(), fixture.layout, owners, SwapBoundary.NONE))
        .isInstanceOfSatisfying(InstallException.class, e -> assertThat(e.code()).isEqualTo(InstallException.FAILED))
        .hasMessage("Cannot install @acme/tools: its new content holds sub, the root of the installed extension"
            + " @acme/tools/sub");
    assertThat(fixture.snapshot()).isEqualTo(v1);
    assertThat(fixture.stagingLeft()).isEmpty();
  }

  @Test
  void swap_movesTheManifestLast() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    Path manifest = fixture.tools().resolve("manifest.json");
    SwapFixture.Recorder hook = new SwapFixture.Recorder(SwapBoundary.movedIn(0), () -> {
      assertThat(fixture.tools().resolve("lib/v2-only.txt")).exists();
      assertThat(manifest).doesNotExist();
    });
    Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners, hook);
    swap.swap();
    assertThat(hook.seen).containsExactly(SwapBoundary.JOURNAL_WRITTEN, SwapBoundary.STAGING_FILLED,
        SwapBoundary.movedOut(0), SwapBoundary.movedOut(1), SwapBoundary.movedIn(1), SwapBoundary.movedIn(0),
        SwapBoundary.MANIFEST_IN, SwapBoundary.JOURNAL_SWAPPED);
    assertThat(manifest).hasContent("{\"name\":\"@acme/tools\",\"version\":\"2\"}");
  }

  @Test
  void stage_writesTheJournalBeforeAnyOtherStagingDirectory() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    Path staging = StagingPaths.extensionStaging(fixture.layout, SwapFixture.STAGING);
    SwapFixture.Recorder hook = new SwapFixture.Recorder(SwapBoundary.JOURNAL_WRITTEN, () -> {
      assertThat(SwapFixture.snapshot(staging)).containsOnlyKeys(StagingPaths.JOURNAL);
      assertThat(StagingPaths.bundleStaging(fixture.bundle, SwapFixture.STAGING)).doesNotExist();
    });
    Swap.stage(fixture.upgrade(), fixture.layout, owners, hook);
    assertThat(hook.seen).contains(SwapBoundary.JOURNAL_WRITTEN);
  }

  @Test
  void swap_neverRenamesOntoAnExistingPath() throws IOException {
    SwapFixture fixture = fixture().sourcesV2();
    Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners,
        new SwapFixture.Recorder(SwapBoundary.STAGING_FILLED, () -> Files.createDirectories(fixture.tools())));
    SortedMap<String, String> before = fixture.snapshot();
    assertThatThrownBy(swap::swap)
        .isInstanceOfSatisfying(InstallException.class, e -> assertThat(e.code()).isEqualTo(InstallException.FAILED))
        .hasMessageStartingWith("Cannot install @acme/tools: the swap failed (Cannot move ")
        .hasMessageContaining(fixture.tools() + ": the target exists); every rename was undone");
    assertThat(fixture.snapshot()).isEqualTo(before);
    assertThat(fixture.tools()).isEmptyDirectory();
    assertThat(fixture.stagingLeft()).isEmpty();
    assertThat(owners.isActive(SwapFixture.OWNER)).isFalse();
  }

  @Test
  void swap_refusesAJournalAnotherOwnerTookAndUndoesPhaseOne() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    SortedMap<String, String> v1 = fixture.snapshot();
    Path journal = StagingPaths.journal(fixture.layout, SwapFixture.STAGING);
    String thief = "00000000-0000-4000-8000-0000000000ff";
    SwapFixture.Recorder hook = new SwapFixture.Recorder(SwapBoundary.movedOut(1), () -> {
      InstallJournal taken = InstallJournalCodec.read(journal);
      AtomicFileWriter.write(journal, InstallJournalCodec.encode(new InstallJournal(thief, taken.stagingId(),
          taken.extension(), taken.phase(), taken.lockfilePath(), taken.newChecksum(), taken.oldManifestDigest(),
          taken.newManifestDigest(), taken.roots(), taken.manifest(), taken.nestedRoots())));
    });
    Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners, hook);
    assertThatThrownBy(swap::swap)
        .isInstanceOfSatisfying(InstallException.class, e -> assertThat(e.code()).isEqualTo(InstallException.FAILED))
        .hasMessage("Cannot install @acme/tools: the swap failed (Cannot swap @acme/tools: the journal " + journal
            + " is no longer this install's (owner " + SwapFixture.OWNER + ")); every rename was undone and the"
            + " staging left to its new owner");
    assertThat(hook.seen).doesNotContain(SwapBoundary.movedIn(1));
    assertThat(fixture.snapshot()).isEqualTo(v1);
    assertThat(InstallJournalCodec.read(journal).ownerId()).isEqualTo(thief);
    assertThat(owners.isActive(SwapFixture.OWNER)).isFalse();
  }

  @Test
  void swap_failingInTheMiddleOfPhaseTwoIsUndoneCompletely() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    SortedMap<String, String> v1 = fixture.snapshot();
    Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners,
        new SwapFixture.Recorder(SwapBoundary.movedIn(1), () -> {
          throw new IOException("disk on fire");
        }));
    assertThatThrownBy(swap::swap)
        .isInstanceOfSatisfying(InstallException.class, e -> assertThat(e.code()).isEqualTo(InstallException.FAILED))
        .hasMessage("Cannot install @acme/tools: the swap failed (java.io.IOException: disk on fire); every rename"
            + " was undone")
        .hasRootCauseMessage("disk on fire");
    assertThat(fixture.snapshot()).isEqualTo(v1);
    assertThat(fixture.stagingLeft()).isEmpty();
    assertThat(owners.isActive(SwapFixture.OWNER)).isFalse();
    swap.rollback();
    assertThat(fixture.snapshot()).isEqualTo(v1);
    assertThatThrownBy(swap::commit).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot commit the swap of @acme/tools: it is undone");
  }

  @Test
  void swap_failingAfterTheJournalSaysSwappedRollsBack() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    SortedMap<String, String> v1 = fixture.snapshot();
    Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners,
        new SwapFixture.Recorder(SwapBoundary.JOURNAL_SWAPPED, () -> {
          throw new IOException("late");
        }));
    assertThatThrownBy(swap::swap)
        .isInstanceOfSatisfying(InstallException.class, e -> assertThat(e.code()).isEqualTo(InstallException.FAILED))
        .hasMessage("Cannot install @acme/tools: the swap failed after it finished (java.io.IOException: late); it was"
            + " rolled back");
    assertThat(fixture.snapshot()).isEqualTo(v1);
    assertThat(fixture.stagingLeft()).isEmpty();
  }

  @Test
  void commit_afterCommitIsRefused() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners, SwapBoundary.NONE);
    assertThatThrownBy(swap::commit).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot commit the swap of @acme/tools: it is staged");
    swap.swap();
    swap.commit();
    assertThatThrownBy(swap::rollback).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot roll back the swap of @acme/tools: it was committed");
    assertThat(exists(StagingPaths.journal(fixture.layout, SwapFixture.STAGING))).isFalse();
  }

  @Test
  void rollback_ofAStagedSwapOnlyDeletesTheStaging() throws IOException {
    SwapFixture fixture = fixture().installV1().sourcesV2();
    SortedMap<String, String> v1 = fixture.snapshot();
    Swap swap = Swap.stage(fixture.upgrade(), fixture.layout, owners, SwapBoundary.NONE);
    assertThat(owners.isActive(SwapFixture.OWNER)).isTrue();
    swap.rollback();
    assertThat(fixture.snapshot()).isEqualTo(v1);
    assertThat(fixture.stagingLeft()).isEmpty();
    assertThat(owners.isActive(SwapFixture.OWNER)).isFalse();
  }
}
