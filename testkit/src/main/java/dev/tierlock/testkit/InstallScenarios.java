package dev.tierlock.testkit;

import static dev.tierlock.testkit.InstallFixture.name;
import static dev.tierlock.testkit.InstallFixture.staging;
import static dev.tierlock.testkit.InstallFixture.tree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionStatus;
import dev.tierlock.archive.ArchiveException;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.InstallBusyException;
import dev.tierlock.install.InstallException;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.InstallResult;
import dev.tierlock.install.InstalledExtension;
import dev.tierlock.install.PendingInstall;
import dev.tierlock.install.PreparedInstall;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** The {@link InstallEngineContract} cases. */
final class InstallScenarios {

  private static final String TOOL = "@acme/tool";
  private static final String BASE = "@acme/base";

  private final InstallFixture f;

  InstallScenarios(InstallFixture fixture) {
    this.f = fixture;
  }

  private byte[] v1() {
    return TestArchives.extension(TOOL, "1.0.0").file("lib/a.txt", "a1").file("lib/only-v1.txt", "gone in v2").build();
  }

  private byte[] v2() {
    return TestArchives.extension(TOOL, "2.0.0").file("lib/a.txt", "a2").file("lib/new-in-v2.txt", "new").build();
  }

  void install_fromTheRegistry_swapsTheFilesIn_recordsTheEntry_andStoresTheArchiveFirst() {
    byte[] v1 = v1();
    f.registry().publish(TOOL, "1.0.0", v1);
    InstallFixture.Checkout a = f.checkout("a");

    InstallResult result = a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);

    assertThat(result.transaction().status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(result.sources()).containsEntry(name(TOOL), InstallResult.Source.REGISTRY);
    assertThat(tree(a.root(TOOL))).containsKeys("manifest.json", "lib/a.txt", "lib/only-v1.txt");
    LockfileEntry entry = f.shared().entry(name(TOOL)).orElseThrow();
    assertThat(entry.version()).isEqualTo("1.0.0");
    assertThat(entry.checksum()).contains(TestArchives.sha256(v1));
    assertThat(entry.filesChecksum()).isPresent();
    assertThat(entry.files()).contains("extensions/@acme/tool/lib/a.txt");
    assertThat(f.archives()).containsExactly(Namespace.NONE.key(ExtensionArchiveKey.of(name(TOOL), TestArchives.sha256(v1)).tierPath()).value());
    assertThat(a.store().log().writtenKeys()).as("the archive reaches the tier before the lockfile that pins it")
        .containsSubsequence(ObjectKey.of(Namespace.NONE.key(ExtensionArchiveKey.of(name(TOOL), TestArchives.sha256(v1)).tierPath()).value()),
            Namespace.NONE.key(TierPath.LOCKFILE));
    assertThat(staging(a)).as("no staging is left").isEmpty();
    assertThat(a.installer().installed()).extracting(InstalledExtension::state)
        .containsExactly(InstalledExtension.State.MATCHES);
  }

  void restore_onAPeer_comesFromTheTierAlone_withTheRegistryOffline() {
    byte[] v1 = v1();
    f.registry().publish(TOOL, "1.0.0", v1);
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    LockfileEntry pinned = f.shared().entry(name(TOOL)).orElseThrow();
    f.registry().offline();
    int calls = f.registry().resolveCalls() + f.registry().openCalls();
    InstallFixture.Checkout b = f.checkout("b");

    InstallResult result = b.installer().install(InstallRequest.parse(TOOL), Catalog.NONE);

    assertThat(f.registry().resolveCalls() + f.registry().openCalls()).as("no registry call").isEqualTo(calls);
    assertThat(result.sources()).containsEntry(name(TOOL), InstallResult.Source.TIER);
    assertThat(tree(b.root(TOOL))).isEqualTo(tree(a.root(TOOL)));
    assertThat(f.shared().entry(name(TOOL))).as("a restore keeps pulledAt and the checksum").contains(pinned);
  }

  void restore_withoutARegistry_andNoArchiveInTheTier_isRefused_andChangesNothing() {
    InstallFixture.Checkout b = f.checkout("b", false);

    assertThatThrownBy(() -> b.installer().install(InstallRequest.parse(TOOL), Catalog.NONE))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE));
    assertThat(f.shared().isEmpty()).isTrue();
    assertThat(tree(b.root(TOOL))).isEmpty();
    assertThat(staging(b)).isEmpty();
  }

  void upgrade_v1ToV2_replacesTheFiles_andKeepsTheSupersededArchiveForACollection() {
    f.registry().publish(TOOL, "1.0.0", v1());
    f.registry().publish(TOOL, "2.0.0", v2());
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);

    a.installer().install(InstallRequest.parse(TOOL + "@2.0.0"), Catalog.NONE);

    assertThat(tree(a.root(TOOL))).containsOnlyKeys("manifest.json", "lib/a.txt", "lib/new-in-v2.txt");
    assertThat(f.shared().entry(name(TOOL)).orElseThrow().version()).isEqualTo("2.0.0");
    assertThat(f.archives()).containsExactlyInAnyOrder(
        Namespace.NONE.key(ExtensionArchiveKey.of(name(TOOL), TestArchives.sha256(v1())).tierPath()).value(),
        Namespace.NONE.key(ExtensionArchiveKey.of(name(TOOL), TestArchives.sha256(v2())).tierPath()).value());
    assertThat(staging(a)).isEmpty();
  }

  void upgrade_whoseCatalogSaveFails_isBackAtV1_fileForFile_andPublishesNothing() {
    f.registry().publish(TOOL, "1.0.0", v1());
    f.registry().publish(TOOL, "2.0.0", v2());
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    TreeMap<String, String> before = tree(a.root(TOOL));
    LockfileEntry entryBefore = f.shared().entry(name(TOOL)).orElseThrow();
    Catalog duplicateType = update -> {
      throw new IllegalStateException("duplicate type acme.Tool");
    };

    assertThatThrownBy(() -> a.installer().install(InstallRequest.parse(TOOL + "@2.0.0"), duplicateType))
        .isInstanceOf(IllegalStateException.class).hasMessage("duplicate type acme.Tool");

    assertThat(tree(a.root(TOOL))).as("v1 byte for byte, its v1-only file included").isEqualTo(before);
    assertThat(f.shared().entry(name(TOOL))).contains(entryBefore);
    assertThat(staging(a)).isEmpty();
  }

  void remove_takesTheCatalogThenTheEntryThenTheFiles_andKeepsTheArchive() {
    f.registry().publish(TOOL, "1.0.0", v1());
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    List<Boolean> filesAtSave = new java.util.ArrayList<>();

    a.installer().remove(name(TOOL), update -> filesAtSave.add(Files.exists(a.root(TOOL))));

    assertThat(filesAtSave).as("the catalog is saved while the files are still there").containsExactly(true);
    assertThat(Files.exists(a.root(TOOL))).isFalse();
    assertThat(f.shared().entry(name(TOOL))).isEmpty();
    assertThat(f.archives()).as("kept for a collection").hasSize(1);
    assertThat(staging(a)).isEmpty();
  }

  void restore_ofATamperedTierArchive_isRefused_andNothingIsSwapped() throws IOException {
    byte[] v1 = v1();
    f.registry().publish(TOOL, "1.0.0", v1);
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    ObjectKey archive = ObjectKey.of(Namespace.NONE.key(ExtensionArchiveKey.of(name(TOOL), TestArchives.sha256(v1)).tierPath()).value());
    byte[] other = TestArchives.extension(TOOL, "1.0.0").file("lib/a.txt", "evil").build();
    f.datastore().write(archive, ObjectBody.of(other), WriteCondition.none(), ObjectMetadata.EMPTY);
    InstallFixture.Checkout b = f.checkout("b", false);

    assertThatThrownBy(() -> b.installer().install(InstallRequest.parse(TOOL), Catalog.NONE))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED));
    assertThat(tree(b.root(TOOL))).isEmpty();
    assertThat(staging(b)).isEmpty();
  }

  void dependencies_areInstalledAsTheirOwnRequests_neverInheritingTheParentsChecksum() {
    byte[] base = TestArchives.extension(BASE, "1.4.0").file("base.txt", "base").build();
    byte[] tool = TestArchives.extension(TOOL, "1.0.0").dependency(BASE, "^1").file("tool.txt", "tool").build();
    f.registry().publish(BASE, "1.4.0", base);
    f.registry().publish(TOOL, "1.0.0", tool);
    InstallFixture.Checkout a = f.checkout("a");

    InstallResult result = a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);

    assertThat(result.installed()).extracting(m -> m.name().value()).containsExactly(TOOL, BASE);
    assertThat(f.shared().entry(name(BASE)).orElseThrow().checksum()).contains(TestArchives.sha256(base));
    assertThat(f.shared().entry(name(TOOL)).orElseThrow().checksum()).contains(TestArchives.sha256(tool));
    assertThat(tree(a.root(BASE))).containsKey("base.txt");
  }

  void restore_keepsTheChannelAndPulledAt_ofThePinnedEntry() {
    byte[] v1 = v1();
    f.registry().publish(TOOL, "1.0.0", v1);
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    LockfileEntry pinned = f.shared().entry(name(TOOL)).orElseThrow();
    a.tierlock().transaction().run(tx -> tx.put(name(TOOL), pinned.toBuilder().channel("beta").build()));
    f.clock().advance(java.time.Duration.ofDays(3));
    InstallFixture.Checkout b = f.checkout("b");

    b.installer().install(InstallRequest.parse(TOOL), Catalog.NONE);

    LockfileEntry after = f.shared().entry(name(TOOL)).orElseThrow();
    assertThat(after.channel()).contains("beta");
    assertThat(after.pulledAt()).isEqualTo(pinned.pulledAt());
  }

  void recordPolicies_ifMissingChecksumLeavesAPinnedEntry_andNeverWritesNothing() {
    byte[] v1 = v1();
    f.registry().publish(TOOL, "1.0.0", v1);
    f.checkout("a").installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    String before = f.shared().text();
    InstallFixture.Checkout b = f.checkout("b");

    InstallResult pinned = b.installer()
        .install(InstallRequest.parse(TOOL).withPolicy(InstallRequest.RecordPolicy.IF_MISSING_CHECKSUM), Catalog.NONE);
    InstallFixture.Checkout c = f.checkout("c");
    InstallResult never = c.installer()
        .install(InstallRequest.parse(TOOL).withPolicy(InstallRequest.RecordPolicy.NEVER), Catalog.NONE);

    assertThat(pinned.recorded()).isFalse();
    assertThat(never.recorded()).isFalse();
    assertThat(f.shared().text()).as("the lockfile's bytes are unchanged").isEqualTo(before);
    assertThat(tree(b.root(TOOL))).isEqualTo(tree(c.root(TOOL))).isNotEmpty();
  }

  void aNestedExtension_isSwappedWithoutTheOuter_andLeavesTheOutersDigestUnchanged() {
    String inner = TOOL + "/plugin";
    f.registry().publish(TOOL, "1.0.0", v1());
    f.registry().publish(inner, "0.1.0", TestArchives.extension(inner, "0.1.0").file("p.txt", "p").build());
    f.registry().publish(TOOL, "2.0.0", v2());
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);

    a.installer().install(InstallRequest.parse(inner + "@0.1.0"), Catalog.NONE);
    assertThat(a.installer().installed()).extracting(InstalledExtension::state).as("installing @acme/tool/plugin"
        + " does not make @acme/tool look edited").containsOnly(InstalledExtension.State.MATCHES);
    TreeMap<String, String> plugin = tree(a.root(inner));
    a.installer().install(InstallRequest.parse(TOOL + "@2.0.0"), Catalog.NONE);

    assertThat(tree(a.root(inner))).as("the nested extension survives the outer's upgrade byte for byte")
        .isEqualTo(plugin);
    assertThat(a.installer().installed()).extracting(InstalledExtension::state)
        .containsOnly(InstalledExtension.State.MATCHES);
  }

  void twoCheckouts_installingAtOnce_bothLand_andNothingIsTorn() throws Exception {
    f.registry().publish(TOOL, "1.0.0", v1());
    f.registry().publish(BASE, "1.0.0", TestArchives.extension(BASE, "1.0.0").file("b.txt", "b").build());
    InstallFixture.Checkout a = f.checkout("a");
    InstallFixture.Checkout b = f.checkout("b");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Callable<InstallResult> one = () -> a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
      Callable<InstallResult> two = () -> b.installer().install(InstallRequest.parse(BASE + "@1.0.0"), Catalog.NONE);
      Future<InstallResult> first = pool.submit(one);
      Future<InstallResult> second = pool.submit(two);
      first.get(60, TimeUnit.SECONDS);
      second.get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }

    assertThat(f.shared().names()).extracting(n -> n.value()).containsExactlyInAnyOrder(TOOL, BASE);
    assertThat(a.installer().installed()).filteredOn(e -> e.name().value().equals(TOOL))
        .extracting(InstalledExtension::state).containsExactly(InstalledExtension.State.MATCHES);
    assertThat(b.installer().installed()).filteredOn(e -> e.name().value().equals(BASE))
        .extracting(InstalledExtension::state).containsExactly(InstalledExtension.State.MATCHES);
  }

  void aReleaseWithoutAStatedChecksum_isInstalled_butNeverStored_norPinned() {
    f.registry().publishWithoutChecksum(TOOL, "1.0.0", v1());
    InstallFixture.Checkout a = f.checkout("a");

    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);

    assertThat(tree(a.root(TOOL))).isNotEmpty();
    assertThat(f.archives()).isEmpty();
    assertThat(f.shared().entry(name(TOOL)).orElseThrow().checksum()).as("no lockfile pins bytes the tier lacks")
        .isEmpty();
  }

  void installed_tellsMatchesEditedOtherVersionMissingAndUnrecorded() throws IOException {
    f.registry().publish(TOOL, "1.0.0", v1());
    f.registry().publish(BASE, "1.0.0", TestArchives.extension(BASE, "1.0.0").file("b.txt", "b").build());
    InstallFixture.Checkout a = f.checkout("a");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    a.installer().install(InstallRequest.parse(BASE + "@1.0.0"), Catalog.NONE);
    Files.writeString(a.root(TOOL).resolve("lib/a.txt"), "edited");
    InstallFixture.Checkout b = f.checkout("b");
    b.installer().install(InstallRequest.parse(TOOL).withPolicy(InstallRequest.RecordPolicy.NEVER), Catalog.NONE);
    Files.createDirectories(b.root("@acme/local"));
    Files.writeString(b.root("@acme/local").resolve("manifest.json"), "{\"name\":\"@acme/local\",\"version\":\"0.0.1\"}");

    Map<String, InstalledExtension.State> onA = states(a);
    Map<String, InstalledExtension.State> onB = states(b);

    assertThat(onA).containsEntry(TOOL, InstalledExtension.State.EDITED).containsEntry(BASE,
        InstalledExtension.State.MATCHES);
    assertThat(onB).containsEntry(TOOL, InstalledExtension.State.MATCHES)
        .containsEntry(BASE, InstalledExtension.State.MISSING).containsEntry("@acme/local",
            InstalledExtension.State.UNRECORDED);
  }

  void anInstallInFlight_makesASecondOfTheSameExtensionBusy_untilItCommits() {
    f.registry().publish(TOOL, "1.0.0", v1());
    f.registry().publish(TOOL, "2.0.0", v2());
    InstallFixture.Checkout a = f.checkout("a");
    InstallFixture.Checkout again = f.checkout("a");
    java.util.concurrent.atomic.AtomicReference<PendingInstall> pending = new java.util.concurrent.atomic.AtomicReference<>();
    PreparedInstall prepared = a.installer().prepare(InstallRequest.parse(TOOL + "@1.0.0"));
    a.tierlock().transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
      pending.set(a.installer().apply(tx, prepared));
      return null;
    }));

    assertThatThrownBy(() -> again.installer().install(InstallRequest.parse(TOOL + "@2.0.0"), Catalog.NONE))
        .as("swapped and published, not yet committed: another install of it waits")
        .isInstanceOfSatisfying(InstallBusyException.class, e -> assertThat(e.code()).isEqualTo(InstallException.BUSY));
    assertThat(tree(a.root(TOOL))).containsKey("lib/only-v1.txt");
    pending.get().commit();
    again.installer().install(InstallRequest.parse(TOOL + "@2.0.0"), Catalog.NONE);

    assertThat(tree(a.root(TOOL))).containsKey("lib/new-in-v2.txt");
    assertThat(f.shared().entry(name(TOOL)).orElseThrow().version()).isEqualTo("2.0.0");
  }

  void aPendingInstall_isCommittedOnlyAfterItsRun_andRolledBackOnlyInsideIt() {
    f.registry().publish(TOOL, "1.0.0", v1());
    InstallFixture.Checkout a = f.checkout("a");
    PreparedInstall prepared = a.installer().prepare(InstallRequest.parse(TOOL + "@1.0.0"));
    java.util.concurrent.atomic.AtomicReference<PendingInstall> pending = new java.util.concurrent.atomic.AtomicReference<>();

    assertThatThrownBy(() -> a.tierlock().transaction().run(tx -> a.installer().apply(tx, prepared)))
        .as("apply needs the pulled-extensions lock").isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("withPulledExtensionsLock");
    prepared.close();  // refused before it took anything: the caller still owns it
    assertThat(staging(a)).isEmpty();
    a.tierlock().transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
      PendingInstall p = a.installer().apply(tx, a.installer().prepare(InstallRequest.parse(TOOL + "@1.0.0")));
      pending.set(p);
      assertThatThrownBy(p::commit).as("not while the change runs").isInstanceOf(IllegalStateException.class);
      return null;
    }));
    assertThatThrownBy(pending.get()::rollback).as("not after the change ended").isInstanceOf(IllegalStateException.class);
    pending.get().commit();

    assertThat(f.shared().entry(name(TOOL))).isPresent();
    assertThat(staging(a)).isEmpty();
  }

  void bundleRoots_areSwappedWithTheExtension_andComeBackOnRollback() {
    byte[] one = TestArchives.extension(TOOL, "1.0.0").file("lib/a.txt", "a1").file("bundles/models/m.js", "m1").build();
    byte[] two = TestArchives.extension(TOOL, "2.0.0").file("lib/a.txt", "a2").file("bundles/models/m.js", "m2")
        .file("bundles/models/extra.js", "x").build();
    f.registry().publish(TOOL, "1.0.0", one);
    f.registry().publish(TOOL, "2.0.0", two);
    java.nio.file.Path[] bundles = new java.nio.file.Path[1];
    InstallFixture.Checkout a = f.checkout("a", layout -> layout.withBundle("bundles/models",
        n -> layout.checkout().resolve(".swamp").resolve("model-bundles").resolve(n.value().replace('/', '_'))));
    bundles[0] = a.layout().checkout().resolve(".swamp/model-bundles/@acme_tool");
    a.installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    assertThat(tree(bundles[0])).containsOnlyKeys("m.js");
    assertThat(tree(a.root(TOOL))).as("a bundle's files live in its own root only").doesNotContainKey("bundles/models/m.js");
    TreeMap<String, String> bundleV1 = tree(bundles[0]);

    assertThatThrownBy(() -> a.installer().install(InstallRequest.parse(TOOL + "@2.0.0"), update -> {
      throw new IllegalStateException("refused");
    })).isInstanceOf(IllegalStateException.class);
    assertThat(tree(bundles[0])).as("rolled back with the extension").isEqualTo(bundleV1);

    a.installer().install(InstallRequest.parse(TOOL + "@2.0.0"), Catalog.NONE);
    assertThat(tree(bundles[0])).containsOnlyKeys("m.js", "extra.js");
    a.installer().remove(name(TOOL), Catalog.NONE);
    assertThat(tree(bundles[0])).as("removed with the extension").isEmpty();
  }

  void convergeMode_restoresThePinFromTheTierAlone_andNeverWritesTheLockfile() {
    byte[] base = TestArchives.extension(BASE, "1.0.0").file("b.txt", "b").build();
    byte[] tool = TestArchives.extension(TOOL, "1.0.0").dependency(BASE, "^1").file("t.txt", "t").build();
    f.registry().publish(BASE, "1.0.0", base);
    f.registry().publish(TOOL, "1.0.0", tool);
    f.checkout("a").installer().install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    String before = f.shared().text();
    int registryCalls = f.registry().resolveCalls() + f.registry().openCalls();
    InstallFixture.Checkout b = f.checkout("b", false);
    dev.tierlock.install.Installer converging = dev.tierlock.install.Installer.builder(b.tierlock(), b.layout())
        .clock(f.clock()).convergeMode().build();
    b.store().log().clear();

    InstallResult result = converging.install(InstallRequest.parse(TOOL + "@9.9.9"), Catalog.NONE);

    assertThat(result.installed()).extracting(m -> m.name().value() + "@" + m.version())
        .as("what the lockfile pins, whatever the request says").containsExactly(TOOL + "@1.0.0", BASE + "@1.0.0");
    assertThat(result.recorded()).isFalse();
    assertThat(f.shared().text()).isEqualTo(before);
    assertThat(b.store().log().writtenKeys()).as("no write to the lockfile or the tier")
        .noneMatch(k -> k.equals(Namespace.NONE.key(TierPath.LOCKFILE)) || k.value().contains("pulled-archives"));
    assertThat(f.registry().resolveCalls() + f.registry().openCalls()).isEqualTo(registryCalls);
    assertThat(converging.installed()).extracting(InstalledExtension::state)
        .containsOnly(InstalledExtension.State.MATCHES);
    assertThatThrownBy(() -> converging.remove(name(TOOL), Catalog.NONE)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> dev.tierlock.install.Installer.builder(b.tierlock(), b.layout()).registry(f.registry())
        .convergeMode().build()).isInstanceOf(IllegalStateException.class);
  }

  private static Map<String, InstalledExtension.State> states(InstallFixture.Checkout checkout) {
    Map<String, InstalledExtension.State> states = new TreeMap<>();
    checkout.installer().installed().forEach(e -> states.put(e.name().value(), e.state()));
    return states;
  }
}
