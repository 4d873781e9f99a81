package dev.tierlock.testkit;

import static dev.tierlock.testkit.InstallFixture.name;
import static dev.tierlock.testkit.InstallFixture.staging;
import static dev.tierlock.testkit.InstallFixture.tree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.archive.ArchiveException;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.InstallException;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.InstallResult;
import dev.tierlock.install.InstalledExtension;
import dev.tierlock.install.PinnedInstallResult.Outcome.Backfill;
import dev.tierlock.install.PinnedInstallResult.Outcome.Install;
import dev.tierlock.install.PinnedInstallResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.groups.Tuple;

/**
 * The {@link InstallEngineContract} cases of {@link dev.tierlock.install.Installer#installPinned}:
 * everything the lockfile pins installed from the tier first, then the registry, and the archives
 * the tier lacks stored back (a backfill) only from bytes that are the pinned ones.
 */
final class InstallPinnedScenarios {

  private static final String TOOL = "@acme/tool";
  private static final String BASE = "@acme/base";

  private final InstallFixture f;

  InstallPinnedScenarios(InstallFixture fixture) {
    this.f = fixture;
  }

  void installPinned_restoresFromTheTierFirst_thenTheRegistry_andBackfillsTheArchiveTheTierLacks() throws IOException {
    byte[] tool = TestArchives.extension(TOOL, "1.0.0").file("lib/t.txt", "t").build();
    byte[] base = TestArchives.extension(BASE, "1.0.0").file("b.txt", "b").build();
    f.registry().publish(TOOL, "1.0.0", tool);
    f.registry().publish(BASE, "1.0.0", base);
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    a.installer().install(InstallRequest.parse(BASE + "@1.0.0"), Catalog.NONE);
    ObjectKey baseArchive = archive(BASE, base);
    f.datastore().delete(baseArchive, WriteCondition.none());
    assertThat(f.archives()).doesNotContain(baseArchive.value());
    String lockfile = f.shared().text();
    int resolves = f.registry().resolveCalls();
    int opens = f.registry().openCalls();
    InstallFixture.Checkout b = f.checkout("b");
    List<String> saved = new ArrayList<>();

    PinnedInstallResult result = b.installer().installPinned(update -> update.installed()
        .forEach(m -> saved.add(m.name().value())));

    assertThat(result.outcomes()).extracting(InstallPinnedScenarios::row).containsExactly(
        tuple(BASE, Install.INSTALLED, InstallResult.Source.REGISTRY, Backfill.STORED),
        tuple(TOOL, Install.INSTALLED, InstallResult.Source.TIER, Backfill.PRESENT));
    assertThat(f.registry().resolveCalls() - resolves).as("one release asked for: the one the tier lacked; the other"
        + " came from the tier alone").isEqualTo(1);
    assertThat(f.registry().openCalls() - opens).as("downloaded once: the backfill stores the bytes the install"
        + " verified").isEqualTo(1);
    assertThat(result.backfilled()).containsExactly(name(BASE));
    assertThat(result.failures()).isEmpty();
    assertThat(tierBytes(baseArchive)).as("back in the tier, byte for byte").isEqualTo(base);
    assertThat(f.shared().text()).as("a restore and a backfill write no lockfile").isEqualTo(lockfile);
    assertThat(saved).as("the catalog is saved once per extension installed").containsExactly(BASE, TOOL);
    assertThat(tree(b.root(TOOL))).isEqualTo(tree(a.root(TOOL))).isNotEmpty();
    assertThat(tree(b.root(BASE))).isEqualTo(tree(a.root(BASE))).isNotEmpty();
    assertThat(b.installer().installed()).extracting(InstalledExtension::state)
        .containsOnly(InstalledExtension.State.MATCHES);
    assertThat(staging(b)).isEmpty();

    PinnedInstallResult again = b.installer().installPinned(Catalog.NONE);

    assertThat(again.outcomes())
        .extracting(PinnedInstallResult.Outcome::install, PinnedInstallResult.Outcome::backfill)
        .as("nothing left to do")
        .containsOnly(tuple(Install.ALREADY_INSTALLED, Backfill.PRESENT));
    assertThat(f.registry().resolveCalls() - resolves).isEqualTo(1);
  }

  void installPinned_backfillsAConstraintPin_atTheInstalledVersionExactly() throws IOException {
    byte[] v120 = TestArchives.extension(TOOL, "1.2.0").file("lib/a.txt", "1.2").build();
    byte[] v130 = TestArchives.extension(TOOL, "1.3.0").file("lib/a.txt", "1.3").build();
    f.registry().publish(TOOL, "1.2.0", v120);
    f.registry().publish(TOOL, "1.3.0", v130);
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.2.0"), Catalog.NONE);
    LockfileEntry pinned = f.shared().entry(name(TOOL)).orElseThrow();
    a.tierlock().transaction().run(tx -> tx.put(name(TOOL), pinned.toBuilder().version("^1").build()));
    ObjectKey archive = archive(TOOL, v120);
    f.datastore().delete(archive, WriteCondition.none());
    int resolves = f.registry().resolveCalls();

    PinnedInstallResult result = a.installer().installPinned(Catalog.NONE);

    assertThat(result.outcomes()).extracting(InstallPinnedScenarios::row).as("^1 accepts the 1.2.0 on disk; the"
        + " registry's latest under ^1 (1.3.0) is not the pinned archive").containsExactly(
            tuple(TOOL, Install.ALREADY_INSTALLED, null, Backfill.STORED));
    assertThat(f.registry().resolveCalls() - resolves).isEqualTo(1);
    assertThat(tierBytes(archive)).as("the installed version's release, exactly").isEqualTo(v120);
    assertThat(f.archives()).containsExactly(archive.value());
    assertThat(f.shared().entry(name(TOOL)).orElseThrow().version()).as("the pin is left as it was").isEqualTo("^1");
    assertThat(staging(a)).isEmpty();
  }

  void installPinned_neverStoresBytesOtherThanPinned_norUnstatedOnes_andReportsEach() {
    byte[] tool = TestArchives.extension(TOOL, "1.0.0").file("lib/a.txt", "a").build();
    byte[] rebuilt = TestArchives.extension(TOOL, "1.0.0").file("lib/a.txt", "rebuilt").build();
    byte[] base = TestArchives.extension(BASE, "1.0.0").file("b.txt", "b").build();
    f.registry().publish(TOOL, "1.0.0", tool);
    f.registry().publish(BASE, "1.0.0", base);
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    a.installer().install(InstallRequest.parse(BASE + "@1.0.0"), Catalog.NONE);
    f.datastore().delete(archive(TOOL, tool), WriteCondition.none());
    f.datastore().delete(archive(BASE, base), WriteCondition.none());
    f.registry().publish(TOOL, "1.0.0", rebuilt);               // other bytes, their own checksum stated
    f.registry().publishWithoutChecksum(BASE, "1.0.0", base);   // the pinned bytes, no checksum stated

    PinnedInstallResult result = a.installer().installPinned(Catalog.NONE);

    assertThat(result.outcomes()).extracting(InstallPinnedScenarios::row).containsExactly(
        tuple(BASE, Install.ALREADY_INSTALLED, null, Backfill.FAILED),
        tuple(TOOL, Install.ALREADY_INSTALLED, null, Backfill.FAILED));
    assertThat(result.outcomes().get(0).backfillFailure().orElseThrow())
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
        .hasMessageContaining("stated no checksum");
    assertThat(result.outcomes().get(1).backfillFailure().orElseThrow())
        .isInstanceOfSatisfying(ArchiveException.class, e -> {
          assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED);
          assertThat(e.expected()).contains(TestArchives.sha256(tool));
          assertThat(e.actual()).contains(TestArchives.sha256(rebuilt));
        }).hasMessageContaining("Cannot backfill archive " + TOOL + "@" + TestArchives.sha256(tool));
    assertThat(result.backfilled()).isEmpty();
    assertThat(result.failures()).hasSize(2);
    assertThat(f.archives()).as("nothing stored").isEmpty();
    assertThat(staging(a)).isEmpty();

    InstallFixture.Checkout b = f.checkout("b");
    PinnedInstallResult peer = b.installer().installPinned(Catalog.NONE);

    assertThat(peer.outcomes())
        .extracting(PinnedInstallResult.Outcome::install, PinnedInstallResult.Outcome::backfill)
        .as("a peer cannot install them either, and each failure is its own")
        .containsOnly(tuple(Install.FAILED, Backfill.FAILED));
    assertThat(peer.outcomes()).allSatisfy(o -> assertThat(o.installFailure().orElseThrow())
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
        .hasMessageContaining("Cannot restore archive " + o.name().value()));
    assertThat(tree(b.root(TOOL))).isEmpty();
    assertThat(tree(b.root(BASE))).isEmpty();
    assertThat(f.archives()).isEmpty();
    assertThat(staging(b)).isEmpty();
  }

  void installPinned_withoutARegistry_restoresFromTheTier_andReportsTheBackfillSkipped() {
    byte[] tool = TestArchives.extension(TOOL, "1.0.0").file("lib/t.txt", "t").build();
    byte[] base = TestArchives.extension(BASE, "1.0.0").file("b.txt", "b").build();
    f.registry().publish(TOOL, "1.0.0", tool);
    f.registry().publish(BASE, "1.0.0", base);
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    a.installer().install(InstallRequest.parse(BASE + "@1.0.0"), Catalog.NONE);
    f.datastore().delete(archive(BASE, base), WriteCondition.none());
    int calls = f.registry().resolveCalls() + f.registry().openCalls();
    InstallFixture.Checkout b = f.checkout("b", false);

    PinnedInstallResult restored = b.installer().installPinned(Catalog.NONE);
    PinnedInstallResult installed = f.checkout("a", false).installer().installPinned(Catalog.NONE);

    assertThat(restored.outcomes()).extracting(InstallPinnedScenarios::row).containsExactly(
        tuple(BASE, Install.FAILED, null, Backfill.SKIPPED),
        tuple(TOOL, Install.INSTALLED, InstallResult.Source.TIER, Backfill.PRESENT));
    assertThat(restored.outcomes().get(0).installFailure().orElseThrow())
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessageContaining("no registry is configured");
    assertThat(tree(b.root(TOOL))).isEqualTo(tree(a.root(TOOL))).isNotEmpty();
    assertThat(tree(b.root(BASE))).isEmpty();
    assertThat(staging(b)).isEmpty();
    assertThat(installed.outcomes()).extracting(InstallPinnedScenarios::row).containsExactly(
        tuple(BASE, Install.ALREADY_INSTALLED, null, Backfill.SKIPPED),
        tuple(TOOL, Install.ALREADY_INSTALLED, null, Backfill.PRESENT));
    assertThat(installed.failures()).isEmpty();
    assertThat(f.registry().resolveCalls() + f.registry().openCalls()).as("no registry call").isEqualTo(calls);
    assertThat(f.archives()).containsExactly(archive(TOOL, tool).value());
  }

  void installPinned_leavesAnEditedExtension_andGivesAnEntryWithoutAChecksumOne() throws IOException {
    byte[] tool = TestArchives.extension(TOOL, "1.0.0").file("lib/t.txt", "t").build();
    byte[] base = TestArchives.extension(BASE, "1.0.0").file("b.txt", "b").build();
    f.registry().publishWithoutChecksum(TOOL, "1.0.0", tool);
    f.registry().publish(BASE, "1.0.0", base);
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    a.installer().install(InstallRequest.parse(BASE + "@1.0.0"), Catalog.NONE);
    assertThat(f.shared().entry(name(TOOL)).orElseThrow().checksum()).isEmpty();
    Files.writeString(a.root(BASE).resolve("b.txt"), "edited");
    f.registry().publish(TOOL, "1.0.0", tool);                  // the registry now states its checksum

    PinnedInstallResult peer = f.checkout("b").installer().installPinned(Catalog.NONE);
    PinnedInstallResult edited = a.installer().installPinned(Catalog.NONE);

    assertThat(peer.outcomes()).extracting(InstallPinnedScenarios::row).containsExactly(
        tuple(BASE, Install.INSTALLED, InstallResult.Source.TIER, Backfill.PRESENT),
        tuple(TOOL, Install.INSTALLED, InstallResult.Source.REGISTRY, Backfill.STORED));
    assertThat(peer.outcomes().get(1).installed().orElseThrow().recorded()).isTrue();
    assertThat(f.shared().entry(name(TOOL)).orElseThrow().checksum()).as("the entry gained its checksum")
        .contains(TestArchives.sha256(tool));
    assertThat(f.archives()).contains(archive(TOOL, tool).value());
    assertThat(edited.outcomes()).extracting(InstallPinnedScenarios::row).containsExactly(
        tuple(BASE, Install.LEFT_EDITED, null, Backfill.PRESENT),
        tuple(TOOL, Install.ALREADY_INSTALLED, null, Backfill.PRESENT));
    assertThat(Files.readString(a.root(BASE).resolve("b.txt"))).as("an edit is never overwritten").isEqualTo("edited");
  }

  private static ObjectKey archive(String extension, byte[] bytes) {
    return Namespace.NONE.key(ExtensionArchiveKey.of(name(extension), TestArchives.sha256(bytes)).tierPath());
  }

  private byte[] tierBytes(ObjectKey key) throws IOException {
    try (ObjectStream stream = f.datastore().openStream(key).orElseThrow()) {
      return stream.stream().readAllBytes();
    }
  }

  /** Returns the columns the cases compare: name, install, source, backfill. */
  private static Tuple row(PinnedInstallResult.Outcome outcome) {
    return tuple(outcome.name().value(), outcome.install(), outcome.source().orElse(null), outcome.backfill());
  }
}
