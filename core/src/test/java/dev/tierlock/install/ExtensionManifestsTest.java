package dev.tierlock.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExtensionManifestsTest {

  @TempDir Path dir;

  @Test
  void readJson_fullManifest_readsNameVersionAndDependencies() throws IOException {
    Path file = write("""
        {"name": "@acme/tool", "version": "1.2.0", "description": {"any": [1, 2]},
         "dependencies": {"@acme/base": "^1", "@acme/more/sub": ">=1 <2"}}
        """);

    ExtensionManifest manifest = ExtensionManifest.readJson(file);

    assertThat(manifest.name()).isEqualTo(ExtensionName.of("@acme/tool"));
    assertThat(manifest.version()).isEqualTo("1.2.0");
    assertThat(manifest.dependencies()).isEqualTo(Map.of(ExtensionName.of("@acme/base"), VersionConstraint.of("^1"),
        ExtensionName.of("@acme/more/sub"), VersionConstraint.of(">=1 <2")));
  }

  @Test
  void readJson_withoutDependencies_hasNone() throws IOException {
    assertThat(ExtensionManifest.readJson(write("{\"version\": \"2\", \"name\": \"@a/b\"}")).dependencies()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"name\": \"acme/tool\", \"version\": \"1\"}|(unknown extension)|has \"name\" \"acme/tool\", which is not a scoped extension name such as @acme/tool",
      "{\"name\": \"@acme/tool\", \"version\": \" \"}|@acme/tool|has a blank \"version\"",
      "{\"name\": \"@acme/tool\", \"version\": 1}|@acme/tool|has \"version\" of type number, not a string",
      "{\"name\": [\"@acme/tool\"], \"version\": \"1\"}|(unknown extension)|has \"name\" of type array, not a string",
      "{\"name\": \"@acme/tool\"}|@acme/tool|has no \"version\"",
      "{\"version\": \"1\"}|(unknown extension)|has no \"name\"",
      "{\"name\": \"@acme/tool\", \"version\": \"1\", \"dependencies\": [\"@a/b\"]}|@acme/tool|has \"dependencies\" of type array, not an object",
      "{\"name\": \"@acme/tool\", \"version\": \"1\", \"dependencies\": {\"@a/b\": 1}}|@acme/tool|has dependency \"@a/b\" of type number, not a string",
      "{\"name\": \"@acme/tool\", \"version\": \"1\", \"dependencies\": {\"Bad\": \"1\"}}|@acme/tool|has dependency \"Bad\", which is not a scoped extension name such as @acme/base",
      "{\"name\": \"@acme/tool\", \"version\": \"1\", \"dependencies\": {\"@a/b\": \"1;rm\"}}|@acme/tool|has dependency \"@a/b\" with constraint \"1;rm\", which is not a version constraint",
      "[1]|(unknown extension)|is not a JSON object",
      "{\"name\": \"@acme/tool\", \"version\": \"1\"} {}|@acme/tool|holds more than one JSON value",
  })
  void readJson_invalidManifest_isRefusedNamingTheFile(String json, String extension, String reason) throws IOException {
    Path file = write(json);

    assertThatThrownBy(() -> ExtensionManifest.readJson(file))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessage("Cannot install " + extension + ": manifest " + file + " " + reason)
        .extracting(e -> ((InstallException) e).code()).isEqualTo("install_manifest_mismatch");
  }

  @Test
  void readJson_duplicateMemberOrBrokenJson_isRefusedAsInvalidJson() throws IOException {
    Path duplicate = write("{\"name\": \"@a/b\", \"version\": \"1\", \"version\": \"2\"}");
    Path broken = write("{\"name\": \"@a/b\", ");

    assertThatThrownBy(() -> ExtensionManifest.readJson(duplicate))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessageStartingWith("Cannot install @a/b: manifest " + duplicate + " is not valid JSON: Duplicate field"
            + " 'version'");
    assertThatThrownBy(() -> ExtensionManifest.readJson(broken))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessageStartingWith("Cannot install @a/b: manifest " + broken + " is not valid JSON: ");
  }

  @Test
  void readJson_missingOrTooLargeFile_isRefused() throws IOException {
    Path missing = dir.resolve("none.json");
    Path large = write("{\"name\": \"@a/b\", \"version\": \"1\", \"pad\": \"" + "x".repeat(ExtensionManifests.MAX_BYTES)
        + "\"}");

    assertThatThrownBy(() -> ExtensionManifest.readJson(missing))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessage("Cannot install (unknown extension): manifest " + missing + " does not exist");
    assertThatThrownBy(() -> ExtensionManifest.readJson(large))
        .isInstanceOfSatisfying(InstallException.class,
            e -> assertThat(e.code()).isEqualTo(InstallException.MANIFEST_MISMATCH))
        .hasMessage("Cannot install (unknown extension): manifest " + large + " is larger than 1048576 bytes");
  }

  private int files;

  private Path write(String json) throws IOException {
    return Files.writeString(dir.resolve("manifest-" + files++ + ".json"), json);
  }
}
