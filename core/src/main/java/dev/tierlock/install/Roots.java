package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.nio.file.Path;

/** Where an extension's files live under a layout. */
final class Roots {

  /** The directory under {@link ExtensionLayout#pulledRoot()} that holds every staging of extension roots. */
  static final String STAGING = ".tierlock-staging";

  private Roots() {}

  /** Returns the extension root of {@code name}: {@code pulledRoot/@scope/name[/more]}. */
  static Path extensionRoot(ExtensionLayout layout, ExtensionName name) {
    Path root = layout.pulledRoot().toAbsolutePath().normalize();
    Path path = root;
    for (String part : name.value().split("/")) {
      path = path.resolve(part);
    }
    return path;
  }

  /** Returns the directory holding every staging of extension roots: {@code pulledRoot/.tierlock-staging}. */
  static Path stagingRoot(ExtensionLayout layout) {
    return layout.pulledRoot().toAbsolutePath().normalize().resolve(STAGING);
  }
}
