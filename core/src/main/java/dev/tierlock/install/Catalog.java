package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.util.List;

/**
 * The embedding tool's own save after the files are swapped and before the install commits: it
 * indexes what the extensions define. A save that throws rolls the install back (a v1 to v2
 * upgrade is back at v1, file for file) and its exception reaches the caller.
 */
@FunctionalInterface
public interface Catalog {

  /** The catalog that saves nothing. */
  Catalog NONE = update -> { };

  /**
   * Saves the catalog for {@code update}.
   *
   * @param update what changed on disk
   * @throws RuntimeException to refuse the change: it is rolled back
   */
  void save(Update update);

  /**
   * What an install or a removal changed on disk, for the embedding tool's catalog: the extensions
   * now installed (with their staged manifests) and those removed.
   *
   * @param installed the extensions swapped in, the requested one first, then its dependencies
   * @param removed the extensions removed
   */
  record Update(List<ExtensionManifest> installed, List<ExtensionName> removed) {

    /**
     * Copies the lists.
     *
     * @param installed the extensions swapped in, the requested one first, then its dependencies
     * @param removed the extensions removed
     */
    public Update {
      installed = List.copyOf(installed);
      removed = List.copyOf(removed);
    }
  }
}
