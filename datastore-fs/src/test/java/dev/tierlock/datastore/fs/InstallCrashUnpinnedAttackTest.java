package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.InstallCrashChild.TOOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.Installer;
import dev.tierlock.install.RecoveryReport;
import dev.tierlock.testkit.FakeRegistry;
import dev.tierlock.testkit.TestArchives;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adversarial review (review4): an upgrade to a release the registry states no checksum for writes
 * an entry with no checksum; recovery rolls a swapped install forward only when the lockfile pins the
 * journal's new checksum, so a kill after the publish and before the commit rolls the files back to
 * v1 while the published lockfile says v2 (and v1's archive was deleted as superseded).
 */
class InstallCrashUnpinnedAttackTest {

  @TempDir
  Path dir;

  @Test
  void upgradeToAReleaseWithoutAChecksum_killedAfterThePublish_keepsTheDiskAndTheLockfileAgreeing() throws Exception {
    Path datastore = dir.resolve("datastore");
    Path checkout = dir.resolve("checkout");
    Path registryDir = dir.resolve("registry");
    Files.createDirectories(datastore);
    Files.createDirectories(checkout);
    FakeRegistry registry = FakeRegistry.directory(registryDir);
    registry.publish(TOOL, "1.0.0", TestArchives.extension(TOOL, "1.0.0").file("lib/a.txt", "a1").build());
    registry.publishWithoutChecksum(TOOL, "2.0.0", TestArchives.extension(TOOL, "2.0.0").file("lib/a.txt", "a2").build());
    try (Tierlock tierlock = open(datastore, checkout)) {
      Installer.builder(tierlock, InstallCrashChild.layout(checkout)).registry(registry).build()
          .install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    }

    try (ChildJvm child = ChildJvm.start(InstallCrashChild.class, "upgrade", datastore.toString(), checkout.toString(),
        registryDir.toString(), "installer/published")) {
      assertThat(child.nextLine()).isEqualTo("at installer/published");
      child.kill();
    }

    RecoveryReport report;
    Optional<String> pinned;
    try (Tierlock tierlock = open(datastore, checkout)) {
      Installer installer = Installer.builder(tierlock, InstallCrashChild.layout(checkout)).build();
      report = installer.recover();
      pinned = tierlock.snapshot().entry(ExtensionName.of(TOOL)).map(LockfileEntry::version);
    }
    Path manifest = checkout.resolve("extensions/@acme/tool/manifest.json");
    String onDisk = Files.readString(manifest).replaceAll("(?s).*\"version\"\\s*:\\s*\"([^\"]+)\".*", "$1");

    assertThat(pinned).as("the publish landed before the kill").contains("2.0.0");
    assertThat(onDisk).as("after recovery (%s) the disk agrees with the published lockfile", report)
        .isEqualTo("2.0.0");
  }

  private static Tierlock open(Path datastore, Path checkout) {
    return Tierlock.builder().datastore(FileSystemDatastore.open(datastore)).checkout(checkout).build();
  }
}
