package dev.tierlock.install;

import dev.tierlock.ExtensionName;
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
}
