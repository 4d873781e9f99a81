package dev.tierlock.install;

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
  void save(CatalogUpdate update);
}
