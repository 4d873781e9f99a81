package dev.tierlock.install;

import static dev.tierlock.install.SwapFixture.OWNER;
import static dev.tierlock.install.SwapFixture.STAGING;
import static dev.tierlock.install.SwapFixture.TOOLS;
import static dev.tierlock.install.SwapFixture.V1_SUM;
import static dev.tierlock.install.SwapFixture.V2_SUM;
import static dev.tierlock.install.SwapFixture.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecoveryTest {

  @TempDir
  Path dir;

  private final OwnerIds swapOwners = new OwnerIds();

  /** Version 1 installed, then an upgrade to version 2 stopped at {@code boundary} as a crash would. */
  private SwapFixture crashedUpgrade(String boundary) throws IOException {
    SwapFixture fixture = new SwapFixture(dir.resolve("checkout")).installV1().sourcesV2();
    assertThat(SwapFixture.crashAt(boundary, hook -> SwapCrashChild.run("upgrade", fixture, hook, swapOwners)))
        .isTrue();
    return fixture;
  }

  private SortedMap<String, String> v1() throws IOException {
    return new SwapFixture(Files.createTempDirectory(dir, "v1")).installV1().snapshot();
  }

  private SortedMap<String, String> v2() throws IOException {
    return new SwapFixture(Files.createTempDirectory(dir, "v2")).expectedV2().snapshot();
  }

  @Test
  void recover_rollsForwardASwappedInstallTheLockfilePins() throws IOException {
    SwapFixture fixture = crashedUpgrade(SwapBoundary.JOURNAL_SWAPPED);
    RecoveryReport report = fixture.recover(V2_SUM);
    assertThat(report).isEqualTo(new RecoveryReport(List.of(TOOLS), List.of(), List.of(), List.of()));
    assertThat(fixture.snapshot()).isEqualTo(v2());
    assertThat(fixture.stagingLeft()).isEmpty();
  }

  @Test
  void recover_rollsBackASwappedInstallTheLockfileDoesNotPin() throws IOException {
    SwapFixture fixture = crashedUpgrade(SwapBoundary.JOURNAL_SWAPPED);
    assertThat(fixture.recover(V1_SUM)).isEqualTo(new RecoveryReport(List.of(), List.of(TOOLS), List.of(), List.of()));
    assertThat(fixture.snapshot()).isEqualTo(v1());
    assertThat(fixture.stagingLeft()).isEmpty();
  }

  @Test
  void recover_rollsBackWhenTheLiveManifestIsNotTheNewOne() throws IOException {
    SwapFixture fixture = crashedUpgrade(SwapBoundary.JOURNAL_SWAPPED);
    write(fixture.tools().resolve("manifest.json"), "{\"edited\":true}");
    assertThat(fixture.recover(V2_SUM).rolledBack()).containsExactly(TOOLS);
    assertThat(fixture.snapshot()).isEqualTo(v1());
  }

  @Test
  void recover_rollsBackAJournalSayingSwappedWhoseLayoutIsPartlyRolledBack() throws IOException {
    SwapFixture fixture = crashedUpgrade(SwapBoundary.JOURNAL_SWAPPED);
    InstallJournal.Root bundle = InstallJournalCodec.read(StagingPaths.journal(fixture.layout, STAGING)).roots().get(1);
    Files.createDirectories(bundle.discard().getParent());
    SwapFiles.move(bundle.live(), bundle.discard());
    SwapFiles.move(bundle.old(), bundle.live());
    assertThat(fixture.recover(V2_SUM).rolledBack()).containsExactly(TOOLS);
    assertThat(fixture.snapshot()).isEqualTo(v1());
    assertThat(fixture.stagingLeft()).isEmpty();
  }

  @Test
  void recover_neverDiscardsARootThatWasNeverMovedOut() throws IOException {
    SwapFixture fixture = crashedUpgrade(SwapBoundary.movedOut(0));
    assertThat(fixture.bundle.resolve("v1-only.js")).exists();
    assertThat(fixture.recover(V2_SUM).rolledBack()).containsExactly(TOOLS);
    assertThat(fixture.snapshot()).isEqualTo(v1());
    assertThat(fixture.stagingLeft()).isEmpty();
  }

  @Test
  void recover_leavesTheJournalOfAnOwnerInFlightAndFinishesAnOrphan() throws IOException {
    SwapFixture fixture = crashedUpgrade(SwapBoundary.movedOut(1));
    SortedMap<String, String> crashed = SwapFixture.snapshot(fixture.root);
    Recovery sameProcess = new Recovery(fixture.layout, Clock.offset(Clock.systemUTC(), Duration.ofDays(1)),
        Set.of(Path.of(fixture.lockfile)), swapOwners, SwapBoundary.NONE);
    assertThat(swapOwners.isActive(OWNER)).isTrue();
    assertThat(sameProcess.recover(name -> Optional.of(V1_SUM), Set.of(TOOLS)).isEmpty()).isTrue();
    assertThat(SwapFixture.snapshot(fixture.root)).isEqualTo(crashed);

    assertThat(fixture.recover(V1_SUM).rolledBack()).containsExactly(TOOLS);
    assertThat(fixture.snapshot()).isEqualTo(v1());
  }

  @Test
  void recover_leavesAJournalItCannotRollBackAndTriesAgainNextTime() throws IOException {
    SwapFixture fixture = crashedUpgrade(SwapBoundary.movedIn(1));
    Path journal = StagingPaths.journal(fixture.layout, STAGING);
    Path discard = InstallJournalCodec.read(journal).roots().get(1).discard();
    write(discard.resolve("squatter"), "in the way");
    RecoveryReport report = fixture.recover(V1_SUM);
    assertThat(report.left()).singleElement().satisfies(left -> assertThat(left)
        .hasMessage("Cannot recover the install journal " + journal + " of @acme/tools: rolling it back failed: Cannot"
            + " move " + fixture.bundle + " to " + discard + ": the target exists; it and its staging are left as they"
            + " are"));
    assertThat(journal).exists();
    assertThatThrownBy(() -> Recovery.requireJudged(report, TOOLS)).isSameAs(report.left().get(0));
    Recovery.requireJudged(report, SwapFixture.OTHER);

    StagingFiles.delete(discard);
    assertThat(fixture.recover(V1_SUM).rolledBack()).containsExactly(TOOLS);
    assertThat(fixture.snapshot()).isEqualTo(v1());
    assertThat(fixture.stagingLeft()).isEmpty();
  }

  @Test
  void recover_rollsARemovalForwardOnlyWhenNoEntryIsPinned() throws IOException {
    SwapFixture pinned = new SwapFixture(dir.resolve("pinned")).installV1();
    SwapFixture.crashAt(SwapBoundary.JOURNAL_SWAPPED, hook -> SwapCrashChild.run("removal", pinned, hook, swapOwners));
    assertThat(pinned.recover(V1_SUM).rolledBack()).containsExactly(TOOLS);
    assertThat(pinned.snapshot()).isEqualTo(v1());

    SwapFixture removed = new SwapFixture(dir.resolve("removed")).installV1();
    SwapFixture.crashAt(SwapBoundary.JOURNAL_SWAPPED, hook -> SwapCrashChild.run("removal", removed, hook, swapOwners));
    assertThat(removed.recover(null).rolledForward()).containsExactly(TOOLS);
    assertThat(removed.snapshot()).isEqualTo(new SwapFixture(dir.resolve("expected")).expectedRemoved().snapshot());
    assertThat(removed.stagingLeft()).isEmpty();
  }

  @Test
  void recover_sweepsJournalLessStagingOlderThanAnHour() throws IOException {
    SwapFixture fixture = new SwapFixture(dir.resolve("checkout")).installV1();
    Instant now = Instant.parse("2026-09-30T12:00:00Z");
    Path staging = Roots.stagingRoot(fixture.layout);
    Path bundles = fixture.bundle.getParent();
    List<Path> old = List.of(staging.resolve("00000000-0000-4000-8000-000000000061"),
        staging.resolve("prepared-61"), bundles.resolve(".tierlock-staging-00000000-0000-4000-8000-000000000062"));
    List<Path> young = List.of(staging.resolve("00000000-0000-4000-8000-000000000059"),
        staging.resolve("prepared-59"), bundles.resolve(".tierlock-staging-00000000-0000-4000-8000-000000000058"));
    for (Path path : old) {
      write(path.resolve("new/0/file"), "left by a crash");
      Files.setLastModifiedTime(path, FileTime.from(now.minus(Duration.ofMinutes(61))));
    }
    for (Path path : young) {
      write(path.resolve("new/0/file"), "still being written");
      Files.setLastModifiedTime(path, FileTime.from(now.minus(Duration.ofMinutes(59))));
    }
    Recovery recovery = new Recovery(fixture.layout, Clock.fixed(now, ZoneOffset.UTC), Set.of(Path.of(fixture.lockfile)),
        new OwnerIds(), SwapBoundary.NONE);
    RecoveryReport report = recovery.recover(name -> Optional.empty(), Set.of(TOOLS));
    assertThat(report.swept()).containsExactlyInAnyOrderElementsOf(old);
    assertThat(report.rolledBack()).isEmpty();
    assertThat(old).allSatisfy(path -> assertThat(path).doesNotExist());
    assertThat(young).allSatisfy(path -> assertThat(path.resolve("new/0/file")).exists());

    RecoveryReport unknownName = recovery.recover(name -> Optional.empty(), Set.of());
    assertThat(unknownName.swept()).isEmpty();
  }
}
