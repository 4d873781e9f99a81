package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.util.List;

/**
 * What an install or a removal changed on disk, for the embedding tool's catalog: the extensions
 * now installed (with their staged manifests) and those removed.
 *
 * @param installed the extensions swapped in, the requested one first, then its dependencies
 * @param removed the extensions removed
 */
public record CatalogUpdate(List<ExtensionManifest> installed, List<ExtensionName> removed) {

  /**
   * Copies the lists.
   *
   * @param installed the extensions swapped in, the requested one first, then its dependencies
   * @param removed the extensions removed
   */
  public CatalogUpdate {
    installed = List.copyOf(installed);
    removed = List.copyOf(removed);
  }
}
