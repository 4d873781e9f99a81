package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * What an extension's manifest says, as the {@link ExtensionLayout} reads it.
 *
 * @param name the extension's scoped name
 * @param version its version
 * @param dependencies the extensions it needs, each with its version constraint
 */
public record ExtensionManifest(ExtensionName name, String version, Map<ExtensionName, VersionConstraint> dependencies) {

  /**
   * Copies the dependencies; the version must not be blank.
   *
   * @param name the extension's scoped name
   * @param version its version
   * @param dependencies the extensions it needs, each with its version constraint
   */
  public ExtensionManifest {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    if (version.isBlank()) {
      throw new IllegalArgumentException("Cannot read the manifest of " + name + ": its version is blank");
    }
    dependencies = Map.copyOf(dependencies);
  }

  /**
   * Reads a manifest file in Tierlock's default format, a JSON object: the format of the command
   * line and the testkit, and what an {@link ExtensionLayout#readManifest} may delegate to.
   *
   * <pre>{@code
   * {"name": "@acme/tool", "version": "1.2.0", "dependencies": {"@acme/base": "^1"}}
   * }</pre>
   *
   * <p>{@code name} (a scoped extension name) and {@code version} (a non-blank string) are
   * required; {@code dependencies} (an object from scoped names to {@link VersionConstraint}
   * strings) is optional. Other members are ignored, whatever their value. Reading is strict: a
   * file that is not UTF-8 JSON, is not one object, repeats a member name, gives a member of the
   * wrong type, a bad name or a bad constraint, or is larger than 1 MiB is refused. Thread-safe.
   *
   * @param file the manifest (a regular file, or a link to one)
   * @return what it says
   * @throws InstallException {@code install_manifest_mismatch} if the file is missing, unreadable,
   *     too large or not a valid manifest; the message names the file and, when known, the extension
   */
  public static ExtensionManifest readJson(Path file) {
    return ExtensionManifests.readJson(file);
  }
}
