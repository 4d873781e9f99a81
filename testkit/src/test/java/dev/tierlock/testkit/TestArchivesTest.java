package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveListing;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.install.ExtensionLayout;
import dev.tierlock.install.ExtensionManifest;
import dev.tierlock.install.VersionConstraint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link TestArchives} and {@link TempDirLayout}: what they build is what the engine reads. */
class TestArchivesTest {

  @TempDir Path dir;

  @Test
  void build_extractsThroughTheStrictReader_withAManifestTheLayoutReads() {
    String longPath = "deep/" + "d".repeat(90) + "/" + "f".repeat(60) + ".txt";
    byte[] archive = TestArchives.extension("@acme/tool", "1.2.0")
        .dependency("@acme/base", "^1")
        .file("bin/run.sh", "echo hi")
        .file(longPath, new byte[] {0, 1, 2})
        .build();
    Path tree = dir.resolve("tree");

    ArchiveListing listing = extract(archive, tree);
    TempDirLayout layout = TempDirLayout.in(dir);
    ExtensionManifest manifest = layout.readManifest(tree.resolve(layout.manifestPath()));

    assertThat(listing.entries()).isNotEmpty();
    assertThat(manifest).isEqualTo(new ExtensionManifest(ExtensionName.of("@acme/tool"), "1.2.0",
        Map.of(ExtensionName.of("@acme/base"), VersionConstraint.of("^1"))));
    assertThat(tree.resolve("bin/run.sh")).hasContent("echo hi");
    assertThat(tree.resolve(longPath)).hasBinaryContent(new byte[] {0, 1, 2});
  }

  @Test
  void build_sameInput_sameBytesAndChecksum() {
    byte[] one = TestArchives.extension("@acme/tool", "1.0.0").file("a", "a").build();
    byte[] two = TestArchives.extension("@acme/tool", "1.0.0").file("a", "a").build();
    byte[] other = TestArchives.extension("@acme/tool", "1.0.0").file("a", "b").build();

    assertThat(one).isEqualTo(two);
    assertThat(TestArchives.sha256(one)).isEqualTo(TestArchives.sha256(two)).isNotEqualTo(TestArchives.sha256(other))
        .matches("[0-9a-f]{64}");
  }

  @Test
  void withoutManifest_leavesItOut() {
    byte[] archive = TestArchives.extension("@acme/tool", "1.0.0").withoutManifest().file("a", "a").build();

    extract(archive, dir.resolve("t"));

    assertThat(dir.resolve("t/manifest.json")).doesNotExist();
    assertThat(dir.resolve("t/a")).hasContent("a");
  }

  @Test
  void file_hostilePath_isRefused() {
    for (String path : new String[] {"../x", "/abs", "a//b", "a/./b", "dir/", "tab\there"}) {
      assertThatThrownBy(() -> TestArchives.extension("@acme/tool", "1.0.0").file(path, "x"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot add file \"" + path + "\" to a test archive: give a relative path of printable ASCII"
              + " without . or .. parts, at most 255 bytes");
    }
  }

  @Test
  void tempDirLayout_rootsBundlesAndSkills() {
    Path bundles = dir.resolve("state/model-bundles");
    TempDirLayout plain = TempDirLayout.in(dir);
    TempDirLayout layout = plain.withBundle("bundles/models", name -> bundles.resolve(name.value().substring(1)))
        .withSkills(path -> path.startsWith("skills/"));
    ExtensionName tool = ExtensionName.of("@acme/tool");

    assertThat(layout.pulledRoot()).isEqualTo(dir.toAbsolutePath().resolve("extensions"));
    assertThat(layout.manifestPath()).isEqualTo("manifest.json");
    assertThat(layout.bundleRoots(tool))
        .containsExactly(new ExtensionLayout.BundleRoot("bundles/models", bundles.resolve("acme/tool")));
    assertThat(layout.isSkill("skills/review.md")).isTrue();
    assertThat(layout.isSkill("bin/run.sh")).isFalse();
    assertThat(plain.bundleRoots(tool)).as("each with returns a new layout").isEmpty();
    assertThat(plain.isSkill("skills/review.md")).isFalse();
    assertThatThrownBy(() -> plain.withBundle("../up", name -> bundles))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use bundle prefix \"../up\": no . or .. parts");
  }

  /** Extracts {@code archive} as the engine does: through a checkout's archives, within the default caps. */
  private ArchiveListing extract(byte[] archive, Path tree) {
    try (FakeRemote remote = FakeRemote.create();
        TestCheckout checkout = TestCheckout.builder(remote, dir.resolve("checkout"), TestClock.create()).build()) {
      Path file = Files.write(dir.resolve("archive.tar.gz"), archive);
      return ArchiveTransactions.of(checkout.tierlock(), ArchiveLimits.DEFAULTS, checkout.clock()).extract(file, tree);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
