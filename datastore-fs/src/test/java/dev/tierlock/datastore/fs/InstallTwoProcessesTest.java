package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.Tierlock;
import dev.tierlock.install.InstalledExtension;
import dev.tierlock.install.Installer;
import dev.tierlock.testkit.FakeRegistry;
import dev.tierlock.testkit.TestArchives;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes installing into one checkout at once: different extensions both land whole; the
 * same extension twice ends whole too, each process either done or told busy, never torn.
 */
class InstallTwoProcessesTest {

  @TempDir
  Path dir;

  @Test
  void twoProcesses_installingDifferentExtensions_intoOneCheckout_bothLandWhole() throws Exception {
    Path datastore = Files.createDirectories(dir.resolve("datastore"));
    Path checkout = Files.createDirectories(dir.resolve("checkout"));
    Path registry = dir.resolve("registry");
    FakeRegistry published = FakeRegistry.directory(registry);
    for (int i = 0; i < 2; i++) {
      published.publish("@acme/x" + i, "1.0.0", TestArchives.extension("@acme/x" + i, "1.0.0").file("f.txt", "x" + i).build());
    }

    List<String> ends = race(datastore, checkout, registry, "install:@acme/x0@1.0.0", "install:@acme/x1@1.0.0");

    assertThat(ends).containsExactly("done", "done");
    try (Tierlock tierlock = Tierlock.builder().datastore(FileSystemDatastore.open(datastore)).checkout(checkout).build()) {
      Installer installer = Installer.builder(tierlock, InstallCrashChild.layout(checkout)).build();
      assertThat(installer.installed()).extracting(InstalledExtension::state)
          .containsExactly(InstalledExtension.State.MATCHES, InstalledExtension.State.MATCHES);
      assertThat(tierlock.snapshot().names()).containsExactlyInAnyOrder(ExtensionName.of("@acme/x0"), ExtensionName.of("@acme/x1"));
    }
  }

  @Test
  void twoProcesses_installingTheSameExtension_endWhole_eachDoneOrBusy() throws Exception {
    Path datastore = Files.createDirectories(dir.resolve("datastore"));
    Path checkout = Files.createDirectories(dir.resolve("checkout"));
    Path registry = dir.resolve("registry");
    FakeRegistry published = FakeRegistry.directory(registry);
    published.publish("@acme/tool", "1.0.0", TestArchives.extension("@acme/tool", "1.0.0").file("f.txt", "one").build());
    published.publish("@acme/tool", "2.0.0", TestArchives.extension("@acme/tool", "2.0.0").file("f.txt", "two").build());

    List<String> ends = race(datastore, checkout, registry, "install:@acme/tool@1.0.0", "install:@acme/tool@2.0.0");

    assertThat(ends).allSatisfy(end -> assertThat(end).isIn("done", "busy")).contains("done");
    try (Tierlock tierlock = Tierlock.builder().datastore(FileSystemDatastore.open(datastore)).checkout(checkout).build()) {
      Installer installer = Installer.builder(tierlock, InstallCrashChild.layout(checkout)).build();
      List<InstalledExtension> installed = installer.installed();
      assertThat(installed).singleElement().satisfies(e -> {
        assertThat(e.state()).isEqualTo(InstalledExtension.State.MATCHES);
        assertThat(Files.readString(checkout.resolve("extensions/@acme/tool/f.txt")))
            .isEqualTo(e.installedVersion().orElseThrow().equals("1.0.0") ? "one" : "two");
      });
      Lockfile shared = tierlock.snapshot();
      assertThat(shared.entry(ExtensionName.of("@acme/tool")).orElseThrow().version())
          .isEqualTo(installed.get(0).installedVersion().orElseThrow());
    }
  }

  private static List<String> race(Path datastore, Path checkout, Path registry, String first, String second)
      throws Exception {
    try (ChildJvm one = ChildJvm.start(InstallCrashChild.class, first, datastore.toString(), checkout.toString(),
            registry.toString(), "none");
        ChildJvm two = ChildJvm.start(InstallCrashChild.class, second, datastore.toString(), checkout.toString(),
            registry.toString(), "none")) {
      String endOne = one.nextLine();
      String endTwo = two.nextLine();
      assertThat(one.awaitExit().code()).isZero();
      assertThat(two.awaitExit().code()).isZero();
      return List.of(endOne, endTwo);
    }
  }
}
