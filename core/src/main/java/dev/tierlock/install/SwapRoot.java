package dev.tierlock.install;

import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One root of a {@link SwapPlan}: a live directory and what replaces it.
 *
 * @param role the extension root (always the plan's first root) or a bundle root
 * @param live the root's live directory, absolute and normalized
 * @param source a directory on the live root's file system holding the root's new content, moved
 *     (not copied) into staging by {@link Swap#stage}; {@code null} when the root gets no new
 *     content (a removal, or a bundle root the new version lacks: the live root is moved out and
 *     nothing comes back)
 */
record SwapRoot(Role role, Path live, @Nullable Path source) {

  /** What a root is to the extension. */
  enum Role {
    /** The extension root, {@code pulledRoot/@scope/name}: holds the manifest. */
    EXTENSION,
    /** A root outside the extension root, from {@link ExtensionLayout#bundleRoots}. */
    BUNDLE
  }

  /** Checks that the paths are absolute and normalizes them. */
  SwapRoot {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(live, "live");
    if (!live.isAbsolute()) {
      throw new IllegalArgumentException("Cannot swap root " + live + ": give an absolute directory");
    }
    live = live.normalize();
    if (source != null) {
      if (!source.isAbsolute()) {
        throw new IllegalArgumentException("Cannot swap root " + live + " from " + source + ": give an absolute source");
      }
      source = source.normalize();
    }
  }
}
