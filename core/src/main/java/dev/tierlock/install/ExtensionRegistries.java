package dev.tierlock.install;

import java.nio.file.Path;

/** Builds the {@link ExtensionRegistry} implementations Tierlock ships. */
public final class ExtensionRegistries {

  private ExtensionRegistries() {}

  /**
   * Returns a registry over a directory: {@code <dir>/<scope>/<name>/<version>.tar.gz}, each archive
   * with its checksum beside it in {@code <version>.tar.gz.sha256} (64 lowercase hex, optionally
   * followed by white space and the file name, as {@code sha256sum} writes it). A constraint
   * resolves to the highest version present that it accepts.
   *
   * @param directory the registry's root
   * @return the registry
   */
  public static ExtensionRegistry directory(Path directory) {
    throw new UnsupportedOperationException("filled by the prepare work");
  }
}
