package dev.tierlock.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DirectoryRegistryTest {

  private static final ExtensionName TOOL = ExtensionName.of("@acme/tool");
  private static final String DIGEST = "abababababababababababababababababababababababababababababababab";

  @TempDir Path dir;

  private ExtensionRegistry registry;

  @BeforeEach
  void open() {
    registry = ExtensionRegistry.directory(dir);
  }

  @ParameterizedTest
  @CsvSource(delimiterString = " => ", value = {
      "latest => 2.1.0",
      "locked => 2.1.0",
      "* => 2.1.0",
      "1.1.0 => 1.1.0",
      "=1.1.0 => 1.1.0",
      "^1 => 1.10.0",
      "^1.2 => 1.10.0",
      "~1.1 => 1.1.5",
      "~1 => 1.10.0",
      ">=1.1 <1.10 => 1.2.0",
      ">= 1.1 < 1.10 => 1.2.0",
      ">1.1.5 <=1.2.0 => 1.2.0",
      "<=1.1 => 1.1.5",
      ">1 => 2.1.0",
      "<1.1.0 => 1.0.0",
      "1.x => 1.10.0",
      "^0.2.1 => 0.2.9",
      "^0.0.3 => 0.0.3",
      "~2.0.0 || ^1 => 1.10.0",
      "^0 || ~2.1 => 2.1.0",
      "^3.0.0-beta => 3.0.0-beta.10",
      ">=3.0.0-beta.2 <3.0.0-beta.10 => 3.0.0-beta.3",
  })
  void resolve_constraint_picksTheHighestVersionItAccepts(String constraint, String expected) throws IOException {
    for (String v : new String[] {"0.0.3", "0.0.4", "0.2.1", "0.2.9", "0.3.0", "1.0.0", "1.1.0", "1.1.5", "1.2.0",
        "1.10.0", "2.0.0-rc.1", "2.1.0", "3.0.0-beta.2", "3.0.0-beta.3", "3.0.0-beta.10"}) {
      release(TOOL, v, "bytes of " + v);
    }

    ExtensionRegistry.Release release = registry.resolve(TOOL, VersionConstraint.of(constraint));

    assertThat(release.version()).isEqualTo(expected);
    assertThat(release.name()).isEqualTo(TOOL);
    assertThat(release.serverUrl()).isEmpty();
  }

  @Test
  void resolve_latestWithOnlyPreReleases_picksTheHighestPreRelease() throws IOException {
    release(TOOL, "1.0.0-alpha", "a");
    release(TOOL, "1.0.0-beta", "b");

    assertThat(registry.resolve(TOOL, VersionConstraint.LATEST).version()).isEqualTo("1.0.0-beta");
    assertThatThrownBy(() -> registry.resolve(TOOL, VersionConstraint.of("^1")))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND))
        .hasMessage("Cannot find @acme/tool@^1 in the directory registry " + dir.toAbsolutePath().normalize());
  }

  @Test
  void resolve_filesThatAreNotVersions_areIgnored() throws IOException {
    release(TOOL, "1.0.0", "one");
    Path releases = dir.resolve("@acme/tool");
    Files.writeString(releases.resolve("9.0.0.tar.gz.bak"), "x");
    Files.writeString(releases.resolve("nightly.tar.gz"), "x");
    Files.writeString(releases.resolve(".9.9.9.tar.gz"), "x");
    Files.createDirectories(releases.resolve("8.0.0.tar.gz"));

    assertThat(registry.resolve(TOOL, VersionConstraint.LATEST).version()).isEqualTo("1.0.0");
  }

  @Test
  void resolve_nestedName_readsItsOwnDirectoryBesideItsParentsReleases() throws IOException {
    ExtensionName sub = ExtensionName.of("@acme/tool/sub");
    release(TOOL, "1.0.0", "parent");
    release(sub, "0.1.0", "child");

    assertThat(registry.resolve(TOOL, VersionConstraint.LATEST).version()).isEqualTo("1.0.0");
    assertThat(registry.resolve(sub, VersionConstraint.LATEST).version()).isEqualTo("0.1.0");
    assertThat(dir.resolve("@acme/tool/sub/0.1.0.tar.gz")).exists();
  }

  @ParameterizedTest
  @ValueSource(strings = {DIGEST, DIGEST + "\n", DIGEST + "  1.2.0.tar.gz\n", DIGEST + " *1.2.0.tar.gz", DIGEST
      + "\t./some/path/1.2.0.tar.gz\r\n"})
  void resolve_checksumFile_inSha256sumForms_isStated(String content) throws IOException {
    release(TOOL, "1.2.0", "bytes");
    Files.writeString(dir.resolve("@acme/tool/1.2.0.tar.gz.sha256"), content);

    assertThat(registry.resolve(TOOL, VersionConstraint.of("1.2.0")).checksum()).contains(DIGEST);
  }

  @Test
  void resolve_withoutChecksumFile_statesNone() throws IOException {
    release(TOOL, "1.2.0", "bytes");

    assertThat(registry.resolve(TOOL, VersionConstraint.of("1.2.0")).checksum()).isEqualTo(Optional.empty());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "AB", "ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB",
      "abab", "sha256:abababababababababababababababababababababababababababababababab", DIGEST + "\n" + DIGEST})
  void resolve_malformedChecksumFile_isAnError(String content) throws IOException {
    release(TOOL, "1.2.0", "bytes");
    Path checksum = dir.resolve("@acme/tool/1.2.0.tar.gz.sha256");
    Files.writeString(checksum, content);

    assertThatThrownBy(() -> registry.resolve(TOOL, VersionConstraint.LATEST))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessage("Cannot reach the extension registry for @acme/tool: checksum file " + checksum + " is malformed:"
            + " it must hold 64 lowercase hex digits, optionally followed by white space and a file name");
  }

  @Test
  void resolve_noMatch_isNotFound() throws IOException {
    release(TOOL, "1.0.0", "one");

    assertThatThrownBy(() -> registry.resolve(TOOL, VersionConstraint.of("2.0.0")))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND))
        .hasMessage("Cannot find @acme/tool@2.0.0 in the directory registry " + dir.toAbsolutePath().normalize());
    assertThatThrownBy(() -> registry.resolve(TOOL, VersionConstraint.of("^2")))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND))
        .hasMessage("Cannot find @acme/tool@^2 in the directory registry " + dir.toAbsolutePath().normalize());
    assertThatThrownBy(() -> registry.resolve(ExtensionName.of("@acme/other"), VersionConstraint.LATEST))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND))
        .extracting(e -> ((InstallException) e).code()).isEqualTo("registry_not_found");
  }

  @Test
  void resolveAndOpen_missingDirectory_isUnavailable() {
    ExtensionRegistry missing = ExtensionRegistry.directory(dir.resolve("gone"));

    assertThatThrownBy(() -> missing.resolve(TOOL, VersionConstraint.LATEST))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE))
        .hasMessage("Cannot reach the extension registry for @acme/tool: the registry directory " + dir.resolve("gone")
            + " does not exist");
    assertThatThrownBy(() -> missing.resolve(TOOL, VersionConstraint.of("1.0.0")))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE));
    assertThatThrownBy(() -> missing.open(new ExtensionRegistry.Release(TOOL, "1.0.0", Optional.empty(), Optional.empty())))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_UNAVAILABLE));
  }

  @ParameterizedTest
  @ValueSource(strings = {"1 - 2", ">=1, <2", "next", "^", "1.2.x-beta", "||", "^1 ||", "<*"})
  void resolve_unsupportedRange_isRefusedClearly(String constraint) throws IOException {
    release(TOOL, "1.0.0", "one");

    assertThatThrownBy(() -> registry.resolve(TOOL, VersionConstraint.of(constraint)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot resolve version range \"" + constraint + "\": ")
        .hasMessageEndingWith(" is not supported; use *, latest, 1.2.3, >=1.2 <2, ^1.2, ~1.2.3 or sets joined by ||");
  }

  @Test
  void open_resolvedRelease_streamsItsArchive() throws IOException {
    release(TOOL, "1.0.0", "the archive");

    try (InputStream in = registry.open(registry.resolve(TOOL, VersionConstraint.LATEST))) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("the archive");
    }
    assertThatThrownBy(() -> registry.open(new ExtensionRegistry.Release(TOOL, "3.0.0", Optional.empty(), Optional.empty())))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND))
        .hasMessage("Cannot find @acme/tool@3.0.0 in the directory registry " + dir.toAbsolutePath().normalize());
    assertThatThrownBy(() -> registry.open(new ExtensionRegistry.Release(TOOL, "../../x", Optional.empty(), Optional.empty())))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.REGISTRY_NOT_FOUND));
  }

  private void release(ExtensionName name, String version, String bytes) throws IOException {
    Path releases = dir;
    for (String part : name.value().split("/")) {
      releases = releases.resolve(part);
    }
    Files.createDirectories(releases);
    Files.writeString(releases.resolve(version + ".tar.gz"), bytes);
  }
}
