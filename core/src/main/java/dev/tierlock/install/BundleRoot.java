package dev.tierlock.install;

import java.nio.file.Path;
import java.util.Objects;

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
public record BundleRoot(String archivePrefix, Path live) {

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
      throw new IllegalArgumentException("Cannot use bundle prefix \"" + archivePrefix + "\": give a relative directory"
          + " such as bundles/models");
    }
    for (String part : archivePrefix.split("/")) {
      if (part.equals(".") || part.equals("..")) {
        throw new IllegalArgumentException("Cannot use bundle prefix \"" + archivePrefix + "\": no . or .. parts");
      }
    }
    if (!live.isAbsolute() || live.getNameCount() < 2) {
      throw new IllegalArgumentException("Cannot use bundle root " + live + ": give an absolute directory at least two"
          + " levels deep");
    }
    live = live.normalize();
  }
}
