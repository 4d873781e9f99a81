package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where an embedding tool keeps its extensions on disk: a port it implements, so the engine never
 * assumes any tool's directories. The extension root of {@code @scope/name} is {@code
 * pulledRoot()/@scope/name}; an extension whose name extends another's ({@code @a/b/c} under
 * {@code @a/b}) has its root nested in the other's, and each is swapped and checked without the
 * other. Staging lives beside the roots ({@code pulledRoot()/.tierlock-staging/<id>} and a sibling
 * {@code .tierlock-staging-<id>} of each bundle root), on the same file system, so every swap step is
 * one rename.
 *
 * <p>Implementations are thread-safe and answer from configuration alone (the same answer every
 * time for one name), because recovery re-derives every path of a journal from them.
 */
public interface ExtensionLayout {

  /** {@return the directory every extension root lives under: absolute, and the same every call} */
  Path pulledRoot();

  /**
   * {@return the roots of {@code name} outside its extension root, each filled from its own archive
   * directory} By default none.
   *
   * @param name the extension
   */
  default List<BundleRoot> bundleRoots(ExtensionName name) {
    return List.of();
  }

  /** {@return the manifest's path relative to an extension root, {@code /}-separated: by default {@code manifest.json}} */
  default String manifestPath() {
    return "manifest.json";
  }

  /**
   * Reads a manifest file (staged or live).
   *
   * @param file the manifest file
   * @return what it says
   * @throws InstallException {@link InstallException#manifestMismatch} if it cannot be read as a
   *     manifest (name it after the file)
   */
  ExtensionManifest readManifest(Path file);

  /**
   * {@return whether a path of an extension root (relative, {@code /}-separated) is a skill: a file
   * another tool may add or rewrite, so excluded from every digest and drift check} By default none.
   *
   * @param relativePath a path inside the extension root, relative and {@code /}-separated
   */
  default boolean isSkill(String relativePath) {
    return false;
  }

  /**
   * A root of an extension outside its extension root, such as a directory of compiled bundles,
   * filled from one directory of the archive. It is swapped with the extension root, as one install.
   *
   * @param archivePrefix the archive directory whose content becomes this root ({@code bundles/models},
   *     relative, {@code /}-separated, no {@code .} or {@code ..}); those files do not go into the
   *     extension root
   * @param live the directory the content lives in, absolute, at least two levels below the file
   *     system root; its staging is a sibling, so it shares its file system
   */
  record BundleRoot(String archivePrefix, Path live) {

    /**
     * Validates the prefix and the path.
     *
     * @param archivePrefix the archive directory whose content becomes this root ({@code
     *     bundles/models}, relative, {@code /}-separated, no {@code .} or {@code ..}); those files do
     *     not go into the extension root
     * @param live the directory the content lives in, absolute, at least two levels below the file
     *     system root; its staging is a sibling, so it shares its file system
     */
    public BundleRoot {
      Objects.requireNonNull(archivePrefix, "archivePrefix");
      Objects.requireNonNull(live, "live");
      if (archivePrefix.isEmpty() || archivePrefix.startsWith("/") || archivePrefix.endsWith("/")
          || archivePrefix.contains("\\") || archivePrefix.contains("//")) {
        throw new IllegalArgumentException("Cannot use bundle prefix \"" + archivePrefix + "\": give a relative"
            + " directory such as bundles/models");
      }
      for (String part : archivePrefix.split("/")) {
        if (part.equals(".") || part.equals("..")) {
          throw new IllegalArgumentException("Cannot use bundle prefix \"" + archivePrefix + "\": no . or .. parts");
        }
      }
      if (!live.isAbsolute() || live.getNameCount() < 2) {
        throw new IllegalArgumentException("Cannot use bundle root " + live + ": give an absolute directory at least"
            + " two levels deep");
      }
      live = live.normalize();
    }
  }
}
