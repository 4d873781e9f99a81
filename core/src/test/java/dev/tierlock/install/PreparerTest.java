package dev.tierlock.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TestDatastoreProvider;
import dev.tierlock.Tierlock;
import dev.tierlock.archive.ArchiveException;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import dev.tierlock.install.TestRegistry.Stated;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Preparer} over an in-memory tier and a directory registry with counters and faults: the
 * tier first (no registry call on a hit, never a silent fall back), verification of every byte
 * against what the lockfile and the registry state, dependencies as their own requests, and nothing
 * left behind by any failure.
 */
class PreparerTest {

  private static final String TOOL = "@acme/tool";
  private static final String BASE = "@acme/base";
  private static final AtomicInteger STORES = new AtomicInteger();

  @TempDir Path dir;

  private Datastore datastore;
  private Tierlock tierlock;
  private Tierlock publisher;
  private ArchiveTransactions archives;
  private TestRegistry registry;
  private Layout layout;
  private final AtomicInteger ids = new AtomicInteger();

  @BeforeEach
  void open() {
    datastore = new TestDatastoreProvider().open(URI.create("memory://preparer-" + STORES.incrementAndGet()));
    tierlock = Tierlock.builder().datastore(datastore).checkout(dir.resolve("checkout")).build();
    publisher = Tierlock.builder().datastore(datastore).checkout(dir.resolve("publisher")).build();
    archives = ArchiveTransactions.of(tierlock, ArchiveLimits.DEFAULTS, Clock.systemUTC());
    registry = new TestRegistry(dir.resolve("registry"));
    layout = new Layout(dir.resolve("checkout").resolve("extensions"));
  }

  @AfterEach
  void close() {
    tierlock.close();
    publisher.close();
  }

  // ---- the tier first

  @Test
  void restore_pinnedArchiveInTheTier_comesFromTheTierWithNoRegistryCall() {
    byte[] archive = TestTarGz.extension(TOOL, "1.0.0").file("bin/run", "tier bytes").build();
    inTier(TOOL, archive);
    registry.publish(TOOL, "1.0.0", TestTarGz.extension(TOOL, "1.0.0").file("bin/run", "registry bytes").build());
    Lockfile lockfile = lockfile(TOOL, "1.0.0", archive);

    for (VersionConstraint constraint : List.of(VersionConstraint.LOCKED, VersionConstraint.of("1.0.0"))) {
      try (PreparedInstall prepared = preparer(registry).prepare(request(TOOL, constraint), lockfile)) {
        assertThat(prepared.source()).isEqualTo(InstallResult.Source.TIER);
        assertThat(prepared.checksum()).isEqualTo(TestTarGz.sha256(archive));
        assertThat(prepared.version()).isEqualTo("1.0.0");
        assertThat(prepared.release()).isEmpty();
        assertThat(prepared.storable()).isEmpty();
        assertThat(prepared.tree().resolve("bin/run")).hasContent("tier bytes");
      }
    }
    assertThat(registry.resolveCalls()).isZero();
    assertThat(registry.openCalls()).isZero();
  }

  @Test
  void restore_registryOfflineOrAbsent_succeedsFromTheTierAlone() {
    byte[] archive = TestTarGz.extension(TOOL, "1.0.0").build();
    inTier(TOOL, archive);
    registry.offline();

    try (PreparedInstall offline = preparer(registry).prepare(request(TOOL, VersionConstraint.LOCKED),
        lockfile(TOOL, "1.0.0", archive));
        PreparedInstall none = preparer(null).prepare(request(TOOL, VersionConstraint.LOCKED),
            lockfile(TOOL, "1.0.0", archive))) {
      assertThat(offline.source()).isEqualTo(InstallResult.Source.TIER);
      assertThat(none.source()).isEqualTo(InstallResult.Source.TIER);
    }
    assertThat(registry.resolveCalls()).isZero();
  }

  @Test
  void restore_tierMiss_fallsBackToTheRegistryForTheEntrysExactVersion_storable() {
    byte[] archive = TestTarGz.extension(TOOL, "1.0.0").build();
    registry.publish(TOOL, "1.0.0", archive).publish(TOOL, "2.0.0", TestTarGz.extension(TOOL, "2.0.0").build());

    try (PreparedInstall prepared = preparer(registry).prepare(request(TOOL, VersionConstraint.LOCKED),
        lockfile(TOOL, "1.0.0", archive))) {
      assertThat(prepared.source()).isEqualTo(InstallResult.Source.REGISTRY);
      assertThat(prepared.version()).isEqualTo("1.0.0");
      assertThat(prepared.checksum()).isEqualTo(TestTarGz.sha256(archive));
      assertThat(prepared.storable()).map(VerifiedArchive::key).contains(key(TOOL, archive));
    }
    assertThat(registry.resolveCalls()).isEqualTo(1);
    assertThat(tierHolds(key(TOOL, archive))).as("prepare stores nothing: commit does").isFalse();
  }

  @Test
  void restore_tierMissAndRegistryBytesNotTheEntrys_isTamperedAndLeavesNothing() {
    byte[] pinned = TestTarGz.extension(TOOL, "1.0.0").file("a", "pinned").build();
    byte[] other = TestTarGz.extension(TOOL, "1.0.0").file("a", "other").build();
    registry.publish(TOOL, "1.0.0", other);

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LOCKED),
        lockfile(TOOL, "1.0.0", pinned)))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
        .hasMessage("Cannot restore archive " + key(TOOL, pinned) + ": the bytes from the registry's @acme/tool@1.0.0"
            + " have SHA-256 " + TestTarGz.sha256(other) + ", expected " + TestTarGz.sha256(pinned)
            + "; they were discarded");
    assertNothingLeft();
  }

  @Test
  void restore_tierMissAndRegistryStatesNoChecksum_isTampered() {
    byte[] archive = TestTarGz.extension(TOOL, "1.0.0").build();
    registry.publish(TOOL, "1.0.0", archive, Stated.NONE);

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LOCKED),
        lockfile(TOOL, "1.0.0", archive)))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
        .hasMessageContaining("the registry stated no checksum for them");
    assertNothingLeft();
  }

  @Test
  void restore_tamperedTierArchive_isRefusedWithoutFallingBack() {
    byte[] archive = TestTarGz.extension(TOOL, "1.0.0").build();
    byte[] forged = TestTarGz.extension(TOOL, "1.0.0").file("evil", "x").build();
    ExtensionArchiveKey key = key(TOOL, archive);
    datastore.write(Namespace.NONE.key(key.tierPath()), ObjectBody.of(forged), WriteCondition.none(),
        ObjectMetadata.EMPTY);
    registry.publish(TOOL, "1.0.0", archive);

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LOCKED),
        lockfile(TOOL, "1.0.0", archive)))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
        .hasMessageStartingWith("Cannot read archive " + key + ": the bytes from ")
        .extracting(e -> ((ArchiveException) e).actual().orElseThrow()).isEqualTo(TestTarGz.sha256(forged));
    assertNothingLeft();
    assertThat(registry.resolveCalls()).isZero();
  }

  @Test
  void restore_tierArchiveOfAnotherNameOrVersion_isAMismatch() {
    byte[] otherVersion = TestTarGz.extension(TOOL, "1.1.0").build();
    byte[] otherName = TestTarGz.extension(BASE, "1.0.0").build();
    inTier(TOOL, otherVersion);
    inTier(TOOL, otherName);
    registry.publish(TOOL, "1.0.0", TestTarGz.extension(TOOL, "1.0.0").build());

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LOCKED),
        lockfile(TOOL, "1.0.0", otherVersion)))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessage("Cannot install @acme/tool: the archive's manifest has version 1.1.0, not 1.0.0");
    assertNothingLeft();
    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.of("1.0.0")),
        lockfile(TOOL, "1.0.0", otherName)))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessage("Cannot install @acme/tool: the archive's manifest names @acme/base, not @acme/tool");
    assertNothingLeft();
    assertThat(registry.resolveCalls()).as("never a silent fall back").isZero();
  }

  @Test
  void restore_offlineRegistryWithoutTierCopy_isUnavailable() {
    byte[] archive = TestTarGz.extension(TOOL, "1.0.0").build();
    registry.publish(TOOL, "1.0.0", archive);
    registry.offline();

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LOCKED),
        lockfile(TOOL, "1.0.0", archive)))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessage("Cannot reach the extension registry for @acme/tool: offline (test)");
    assertNothingLeft();
  }

  @Test
  void prepare_noRegistryAndTheTierCannotServe_isUnavailableSayingSo() {
    byte[] archive = TestTarGz.extension(TOOL, "1.0.0").build();

    assertThatThrownBy(() -> preparer(null).prepare(request(TOOL, VersionConstraint.LOCKED),
        lockfile(TOOL, "1.0.0", archive)))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessage("Cannot reach the extension registry for @acme/tool: no registry is configured and the tier holds"
            + " no archive at " + key(TOOL, archive).tierPath());
    assertThatThrownBy(() -> preparer(null).prepare(request(TOOL, VersionConstraint.LATEST), Lockfile.EMPTY))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessage("Cannot reach the extension registry for @acme/tool: no registry is configured and the lockfile"
            + " has no entry for it")
        .extracting(e -> ((InstallException) e).code()).isEqualTo("registry_unavailable");
    assertNothingLeft();
  }

  // ---- the registry

  @Test
  void install_statedMatchingChecksum_isStorable_butNothingReachesTheTier() {
    byte[] archive = TestTarGz.extension(TOOL, "1.2.0").file("lib/a.txt", "a").build();
    registry.publish(TOOL, "1.2.0", archive).publish(TOOL, "1.1.0", TestTarGz.extension(TOOL, "1.1.0").build());

    try (PreparedInstall prepared = preparer(registry).prepare(request(TOOL, VersionConstraint.of("^1")),
        Lockfile.EMPTY)) {
      assertThat(prepared.source()).isEqualTo(InstallResult.Source.REGISTRY);
      assertThat(prepared.version()).isEqualTo("1.2.0");
      assertThat(prepared.release()).map(ExtensionRegistry.Release::checksum).contains(java.util.Optional.of(
          TestTarGz.sha256(archive)));
      assertThat(prepared.storable()).map(VerifiedArchive::key).contains(key(TOOL, archive));
      assertThat(prepared.tree()).isEqualTo(Roots.stagingRoot(layout).resolve("prepared-id-1").resolve("tree"));
      assertThat(prepared.tree().resolve("lib/a.txt")).hasContent("a");
      assertThat(prepared.tree().getParent().resolve("archive.tar.gz")).as("the download is gone").doesNotExist();
      assertThat(tierHolds(key(TOOL, archive))).isFalse();
    }
    assertThat(registry.unclosedStreams()).isZero();
    assertThat(layout.pulledRoot().resolve(".tierlock-staging/prepared-id-1/tree")).doesNotExist();
  }

  @Test
  void install_noStatedChecksum_isInstallableButNotStorable() {
    byte[] archive = TestTarGz.extension(TOOL, "1.0.0").build();
    registry.publish(TOOL, "1.0.0", archive, Stated.NONE);

    try (PreparedInstall prepared = preparer(registry).prepare(request(TOOL, VersionConstraint.LATEST),
        Lockfile.EMPTY)) {
      assertThat(prepared.checksum()).isEqualTo(TestTarGz.sha256(archive));
      assertThat(prepared.storable()).isEmpty();
      assertThat(prepared.tree().resolve("manifest.json")).exists();
    }
    assertThat(tierHolds(key(TOOL, archive))).isFalse();
  }

  @Test
  void install_registryChecksumMismatch_isTampered_nothingStagedOrStored() {
    byte[] archive = TestTarGz.extension(TOOL, "1.0.0").build();
    registry.publish(TOOL, "1.0.0", archive, Stated.WRONG);
    String stated = TestTarGz.sha256(new byte[] {1});

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LATEST), Lockfile.EMPTY))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
        .hasMessage("Cannot download archive " + TOOL + "@" + stated + ": the bytes from the registry's @acme/tool@1.0.0"
            + " have SHA-256 " + TestTarGz.sha256(archive) + ", expected " + stated + "; they were discarded");
    assertNothingLeft();
    assertThat(tierHolds(key(TOOL, archive))).isFalse();
    assertThat(tierHolds(ExtensionArchiveKey.of(TOOL, stated))).isFalse();
    assertThat(archives.store().read(key(TOOL, archive))).as("nor cached").isEmpty();
  }

  @Test
  void install_manifestOfAnotherName_isAMismatch() {
    registry.publish(TOOL, "1.0.0", TestTarGz.extension(BASE, "1.0.0").build());

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LATEST), Lockfile.EMPTY))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessage("Cannot install @acme/tool: the archive's manifest names @acme/base, not @acme/tool");
    assertNothingLeft();
  }

  @Test
  void install_exactPinWhoseManifestHasAnotherVersion_isAMismatch() {
    registry.publish(TOOL, "1.0.0", TestTarGz.extension(TOOL, "1.0.1").build());

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.of("=1.0.0")), Lockfile.EMPTY))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessage("Cannot install @acme/tool: the archive's manifest has version 1.0.1, not 1.0.0");
    assertNothingLeft();
  }

  @Test
  void install_missingOrUnreadableManifest_isAMismatch() {
    registry.publish(TOOL, "1.0.0", TestTarGz.extension(TOOL, "1.0.0").withoutManifest().file("a", "a").build());
    registry.publish(TOOL, "2.0.0", TestTarGz.tarGz(Map.of("manifest.json", "{\"name\": 1}".getBytes(
        StandardCharsets.UTF_8))));

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.of("1.0.0")), Lockfile.EMPTY))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessage("Cannot install @acme/tool: the archive has no manifest at manifest.json");
    assertNothingLeft();
    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.of("2.0.0")), Lockfile.EMPTY))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessageEndingWith("manifest.json has \"name\" of type number, not a string");
    assertNothingLeft();
  }

  @Test
  void install_safetyRefusal_leavesNothing() {
    registry.publish(TOOL, "1.0.0", TestTarGz.extension(TOOL, "1.0.0").file("bin/evil.sh", "rm -rf").build());
    List<Path> analysed = new ArrayList<>();
    SafetyAnalyzer safety = (name, version, root) -> {
      analysed.add(root);
      if (Files.exists(root.resolve("bin/evil.sh"))) {
        throw InstallException.unsafe(name.value(), "bin/evil.sh deletes files", null);
      }
    };

    assertThatThrownBy(() -> new Preparer(layout, registry, safety, archives, ArchiveLimits.DEFAULTS, this::nextId)
        .prepare(request(TOOL, VersionConstraint.LATEST), Lockfile.EMPTY))
        .isInstanceOfSatisfying(InstallException.class, e -> assertThat(e.code()).isEqualTo(InstallException.UNSAFE))
        .hasMessage("Cannot install @acme/tool: the safety analysis refused it: bin/evil.sh deletes files");
    assertThat(analysed).hasSize(1);
    assertNothingLeft();
  }

  @Test
  void install_overTheCompressedCap_isRefusedWhileStreaming() {
    byte[] archive = TestTarGz.extension(TOOL, "1.0.0").file("big", new byte[4096]).build();
    registry.publish(TOOL, "1.0.0", archive);
    long cap = archive.length - 1;

    assertThatThrownBy(() -> new Preparer(layout, registry, null, archives,
        ArchiveLimits.DEFAULTS.withMaxCompressedBytes(cap), this::nextId)
        .prepare(request(TOOL, VersionConstraint.LATEST), Lockfile.EMPTY))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
        .hasMessageStartingWith("Cannot accept archive @acme/tool@1.0.0 from the registry: its compressed size exceeds"
            + " the cap COMPRESSED_BYTES of " + cap + " bytes")
        .extracting(e -> ((ArchiveException) e).limit().orElseThrow()).isEqualTo(ArchiveException.Limit.COMPRESSED_BYTES);
    assertNothingLeft();
    assertThat(registry.unclosedStreams()).isZero();
  }

  @Test
  void install_hostileArchive_isRefusedWithNothingLeft() {
    registry.publish(TOOL, "1.0.0", TestTarGz.tarGz(Map.of("manifest.json", manifest(TOOL, "1.0.0"),
        "../../escaped.txt", "out".getBytes(StandardCharsets.UTF_8))));

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LATEST), Lockfile.EMPTY))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.REJECTED))
        .hasMessageContaining("../../escaped.txt");
    assertNothingLeft();
    try (Stream<Path> all = Files.walk(dir)) {
      assertThat(all.filter(p -> p.getFileName().toString().equals("escaped.txt"))).isEmpty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void install_streamBreakingMidRead_isUnavailableWithNothingLeft() {
    registry.publish(TOOL, "1.0.0", TestTarGz.extension(TOOL, "1.0.0").file("big", new byte[100_000]).build());
    registry.breakNextStreamAfter(100);

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LATEST), Lockfile.EMPTY))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessage("Cannot reach the extension registry for @acme/tool: the download of @acme/tool@1.0.0 broke:"
            + " java.io.IOException: connection reset (test)")
        .hasCauseInstanceOf(UncheckedIOException.class);
    assertNothingLeft();
    assertThat(registry.unclosedStreams()).isZero();
  }

  @Test
  void install_notFound_keepsItsType() {
    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LATEST), Lockfile.EMPTY))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessageContaining("does not exist");
    registry.publish(BASE, "1.0.0", TestTarGz.extension(BASE, "1.0.0").build());
    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.of("^2")), Lockfile.EMPTY))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND))
        .hasMessage("Cannot find @acme/tool@^2 in the directory registry " + dir.resolve("registry").toAbsolutePath().normalize());
    assertNothingLeft();
  }

  // ---- dependencies

  @Test
  void dependencies_arePreparedAsTheirOwnRequests_neverInheritingTheParentsChecksum() {
    byte[] tool = TestTarGz.extension(TOOL, "1.0.0").dependency(BASE, "^1").build();
    byte[] base = TestTarGz.extension(BASE, "1.4.0").build();
    inTier(TOOL, tool);
    registry.publish(BASE, "1.4.0", base).publish(BASE, "1.3.0", TestTarGz.extension(BASE, "1.3.0").build())
        .publish(BASE, "2.0.0", TestTarGz.extension(BASE, "2.0.0").build());

    try (PreparedInstall prepared = preparer(registry).prepare(
        request(TOOL, VersionConstraint.LOCKED).withPolicy(InstallRequest.RecordPolicy.IF_MISSING_CHECKSUM),
        lockfile(TOOL, "1.0.0", tool))) {
      assertThat(prepared.source()).isEqualTo(InstallResult.Source.TIER);
      assertThat(prepared.dependencies()).hasSize(1);
      PreparedInstall dependency = prepared.dependencies().get(0);
      assertThat(dependency.request()).isEqualTo(new InstallRequest(ExtensionName.of(BASE), VersionConstraint.of("^1"),
          InstallRequest.RecordPolicy.IF_MISSING_CHECKSUM));
      assertThat(dependency.source()).isEqualTo(InstallResult.Source.REGISTRY);
      assertThat(dependency.version()).isEqualTo("1.4.0");
      assertThat(dependency.checksum()).isEqualTo(TestTarGz.sha256(base)).isNotEqualTo(prepared.checksum());
      assertThat(dependency.storable()).map(VerifiedArchive::key).contains(key(BASE, base));
    }
  }

  @Test
  void dependencies_inTheLockfile_atAVersionTheParentAccepts_areRestoredFromTheTier() {
    byte[] tool = TestTarGz.extension(TOOL, "2.0.0").dependency(BASE, "^1").build();
    byte[] base = TestTarGz.extension(BASE, "1.0.0").build();
    registry.publish(TOOL, "2.0.0", tool);
    inTier(BASE, base);

    try (PreparedInstall prepared = preparer(registry).prepare(request(TOOL, VersionConstraint.of("2.0.0")),
        lockfile(BASE, "1.0.0", base))) {
      PreparedInstall dependency = prepared.dependencies().get(0);
      assertThat(dependency.request().constraint()).isEqualTo(VersionConstraint.LOCKED);
      assertThat(dependency.source()).isEqualTo(InstallResult.Source.TIER);
      assertThat(dependency.version()).isEqualTo("1.0.0");
    }
    assertThat(registry.resolveCalls()).isEqualTo(1);
  }

  @Test
  void aDependencyPinnedAtAVersionTheParentRefuses_isResolvedAfresh_notKept() {
    byte[] tool = TestTarGz.extension(TOOL, "2.0.0").dependency(BASE, "^2").build();
    byte[] oldBase = TestTarGz.extension(BASE, "1.0.0").build();
    byte[] newBase = TestTarGz.extension(BASE, "2.1.0").build();
    registry.publish(TOOL, "2.0.0", tool);
    registry.publish(BASE, "2.1.0", newBase);
    inTier(BASE, oldBase);

    try (PreparedInstall prepared = preparer(registry).prepare(request(TOOL, VersionConstraint.of("2.0.0")),
        lockfile(BASE, "1.0.0", oldBase))) {
      PreparedInstall dependency = prepared.dependencies().get(0);
      assertThat(dependency.request().constraint()).isEqualTo(VersionConstraint.of("^2"));
      assertThat(dependency.version()).isEqualTo("2.1.0");
    }
  }

  @Test
  void dependencies_alreadySatisfiedOnDisk_areSkipped() throws IOException {
    byte[] tool = TestTarGz.extension(TOOL, "1.0.0").dependency(BASE, "^1").build();
    byte[] base = TestTarGz.extension(BASE, "1.0.0").build();
    registry.publish(TOOL, "1.0.0", tool).publish(BASE, "1.0.0", base);
    Lockfile lockfile = lockfile(BASE, "1.0.0", base);
    Path live = Roots.extensionRoot(layout, ExtensionName.of(BASE)).resolve("manifest.json");
    Files.createDirectories(live.getParent());
    Files.write(live, manifest(BASE, "1.0.0"));

    try (PreparedInstall prepared = preparer(registry).prepare(request(TOOL, VersionConstraint.LATEST), lockfile)) {
      assertThat(prepared.dependencies()).isEmpty();
    }
    assertThat(registry.resolveCalls()).isEqualTo(1);

    Files.write(live, manifest(BASE, "0.9.0"));
    try (PreparedInstall prepared = preparer(registry).prepare(request(TOOL, VersionConstraint.LATEST), lockfile)) {
      assertThat(prepared.dependencies()).extracting(PreparedInstall::version).containsExactly("1.0.0");
    }
  }

  @Test
  void dependencies_cycle_preparesEachNameOnce() {
    registry.publish(TOOL, "1.0.0", TestTarGz.extension(TOOL, "1.0.0").dependency(BASE, "*").build());
    registry.publish(BASE, "1.0.0", TestTarGz.extension(BASE, "1.0.0").dependency(TOOL, "^1")
        .dependency("@acme/leaf", "1.0.0").build());
    registry.publish("@acme/leaf", "1.0.0", TestTarGz.extension("@acme/leaf", "1.0.0").dependency(BASE, "1.0.0").build());

    try (PreparedInstall prepared = preparer(registry).prepare(request(TOOL, VersionConstraint.LATEST),
        Lockfile.EMPTY)) {
      assertThat(prepared.dependencies()).extracting(PreparedInstall::name).containsExactly(ExtensionName.of(BASE));
      PreparedInstall base = prepared.dependencies().get(0);
      assertThat(base.dependencies()).extracting(PreparedInstall::name).containsExactly(ExtensionName.of("@acme/leaf"));
      assertThat(base.dependencies().get(0).dependencies()).isEmpty();
    }
    assertThat(registry.openCalls()).isEqualTo(3);
  }

  @Test
  void dependencies_deeperThanTheCap_areRefusedWithNothingLeft() {
    int levels = Preparer.MAX_DEPTH + 2;
    for (int i = 0; i < levels; i++) {
      TestTarGz archive = TestTarGz.extension("@deep/n" + i, "1.0.0");
      if (i + 1 < levels) {
        archive.dependency("@deep/n" + (i + 1), "1.0.0");
      }
      registry.publish("@deep/n" + i, "1.0.0", archive.build());
    }

    assertThatThrownBy(() -> preparer(registry).prepare(request("@deep/n0", VersionConstraint.LATEST), Lockfile.EMPTY))
        .isInstanceOfSatisfying(InstallException.class, e -> assertThat(e.code()).isEqualTo(InstallException.FAILED))
        .hasMessageStartingWith("Cannot install @deep/n32: its dependencies nest deeper than 32 levels: @deep/n0 ->"
            + " @deep/n1 -> ");
    assertNothingLeft();
  }

  @Test
  void dependencies_aFailingDependency_discardsTheParentsStagingToo() {
    registry.publish(TOOL, "1.0.0", TestTarGz.extension(TOOL, "1.0.0").dependency(BASE, "^1").build());
    registry.publish(BASE, "1.0.0", TestTarGz.extension(BASE, "1.0.0").build(), Stated.WRONG);

    assertThatThrownBy(() -> preparer(registry).prepare(request(TOOL, VersionConstraint.LATEST), Lockfile.EMPTY))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED));
    assertNothingLeft();
    assertThat(archives.store().read(key(TOOL, TestTarGz.extension(TOOL, "1.0.0").dependency(BASE, "^1").build())))
        .as("the parent was not verified into the cache").isEmpty();
  }

  // ---- helpers

  private Preparer preparer(ExtensionRegistry source) {
    return new Preparer(layout, source, null, archives, ArchiveLimits.DEFAULTS, this::nextId);
  }

  private String nextId() {
    return "id-" + ids.incrementAndGet();
  }

  private static InstallRequest request(String name, VersionConstraint constraint) {
    return InstallRequest.of(ExtensionName.of(name), constraint);
  }

  private static ExtensionArchiveKey key(String name, byte[] archive) {
    return ExtensionArchiveKey.of(name, TestTarGz.sha256(archive));
  }

  private static Lockfile lockfile(String name, String version, byte[] archive) {
    Map<ExtensionName, LockfileEntry> entries = new HashMap<>();
    entries.put(ExtensionName.of(name), LockfileEntry.builder(version, "2026-01-01T00:00:00.000Z")
        .checksum(TestTarGz.sha256(archive)).build());
    return Lockfile.of(entries);
  }

  private static byte[] manifest(String name, String version) {
    return ("{\"name\": \"" + name + "\", \"version\": \"" + version + "\"}").getBytes(StandardCharsets.UTF_8);
  }

  /** Stores {@code archive} in the tier through another checkout, so this one's cache is empty. */
  private void inTier(String name, byte[] archive) {
    try {
      Path file = Files.write(Files.createTempFile(dir, "tier", ".tar.gz"), archive);
      ArchiveTransactions.of(publisher).store().store(key(name, archive), file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private boolean tierHolds(ExtensionArchiveKey key) {
    return datastore.stat(Namespace.NONE.key(key.tierPath())).isPresent();
  }

  private void assertNothingLeft() {
    Path staging = Roots.stagingRoot(layout);
    if (Files.exists(staging)) {
      try (Stream<Path> left = Files.list(staging)) {
        assertThat(left).as("staging after a failure").isEmpty();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    assertThat(registry.unclosedStreams()).as("streams left open").isZero();
  }

  /** The extensions under {@code <checkout>/extensions}, JSON manifests. */
  private record Layout(Path pulledRoot) implements ExtensionLayout {
    @Override
    public ExtensionManifest readManifest(Path file) {
      return ExtensionManifest.readJson(file);
    }
  }
}
