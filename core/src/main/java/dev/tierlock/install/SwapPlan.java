package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What one stage-and-swap does to one extension: an install or upgrade (a new checksum and new
 * content for the extension root) or a removal (no new checksum, no new content).
 *
 * @param name the extension
 * @param ownerId the id of the install in flight (a UUID in canonical form), registered in {@link
 *     OwnerIds} while it runs; recovery leaves a journal alone while its owner is registered
 * @param stagingId the id of this swap's staging (a UUID in canonical form), fresh for every swap
 * @param lockfilePath the resolved path of the lockfile the install writes (absolute); recovery
 *     accepts it only if it is one of the lockfile paths it is given
 * @param newChecksum the SHA-256 of the new archive (64 lowercase hex), or {@code null} for a removal
 * @param roots every root of the extension: the extension root first, then each of {@link
 *     ExtensionLayout#bundleRoots} in order
 * @param manifestPath the manifest's path relative to the extension root, {@code /}-separated
 *     ({@link ExtensionLayout#manifestPath()})
 * @param nestedRoots directories relative to the extension root ({@code /}-separated) that hold
 *     other extensions' roots (installing {@code @a/b} while {@code @a/b/c} is installed: {@code c});
 *     those present are copied across the swap unchanged
 */
record SwapPlan(ExtensionName name, String ownerId, String stagingId, String lockfilePath,
    @Nullable String newChecksum, List<SwapRoot> roots, String manifestPath, List<String> nestedRoots) {

  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

  /** Validates every part; see the parameters. */
  SwapPlan {
    Objects.requireNonNull(name, "name");
    requireUuid("owner id", ownerId);
    requireUuid("staging id", stagingId);
    if (!Path.of(lockfilePath).isAbsolute()) {
      throw new IllegalArgumentException("Cannot plan the swap of " + name + ": lockfile path " + lockfilePath
          + " is not absolute");
    }
    if (newChecksum != null && !isHex64(newChecksum)) {
      throw new IllegalArgumentException("Cannot plan the swap of " + name + ": checksum " + newChecksum
          + " is not 64 lowercase hex");
    }
    roots = List.copyOf(roots);
    if (roots.isEmpty() || roots.get(0).role() != SwapRoot.Role.EXTENSION) {
      throw new IllegalArgumentException("Cannot plan the swap of " + name + ": the first root must be the extension root");
    }
    for (int i = 1; i < roots.size(); i++) {
      if (roots.get(i).role() != SwapRoot.Role.BUNDLE) {
        throw new IllegalArgumentException("Cannot plan the swap of " + name + ": root " + i + " must be a bundle root");
      }
    }
    if (newChecksum == null && roots.stream().anyMatch(root -> root.source() != null)) {
      throw new IllegalArgumentException("Cannot plan the swap of " + name + ": a removal has no new content");
    }
    if (newChecksum != null && roots.get(0).source() == null) {
      throw new IllegalArgumentException("Cannot plan the swap of " + name + ": an install needs new extension content");
    }
    requireRelative(name, "manifest path", manifestPath);
    nestedRoots = List.copyOf(nestedRoots);
    Set<String> seen = new HashSet<>();
    for (String relDir : nestedRoots) {
      requireNested(name, relDir);
      if (!seen.add(relDir)) {
        throw new IllegalArgumentException("Cannot plan the swap of " + name + ": nested root " + relDir + " given twice");
      }
    }
  }

  /** Returns whether this swap removes the extension. */
  boolean isRemoval() {
    return newChecksum == null;
  }

  /** Returns whether {@code value} is 64 lowercase hex characters. */
  static boolean isHex64(String value) {
    return HEX64.matcher(value).matches();
  }

  /** Returns whether {@code value} is a UUID in canonical (lowercase) form. */
  static boolean isUuid(String value) {
    try {
      return UUID.fromString(value).toString().equals(value);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Returns whether {@code relDir} can be the root of an extension nested in {@code name}'s: a
   * relative {@code /}-separated directory that, appended to the name, is a valid name.
   */
  static boolean isNested(ExtensionName name, String relDir) {
    return !relDir.isEmpty() && ExtensionName.isValid(name.value() + "/" + relDir);
  }

  private static void requireUuid(String what, String value) {
    if (!isUuid(value)) {
      throw new IllegalArgumentException("Cannot plan a swap with " + what + " \"" + value + "\": give a UUID");
    }
  }

  private static void requireNested(ExtensionName name, String relDir) {
    if (!isNested(name, relDir)) {
      throw new IllegalArgumentException("Cannot plan the swap of " + name + ": nested root \"" + relDir
          + "\" is not the rest of an extension name under it");
    }
  }

  private static void requireRelative(ExtensionName name, String what, String value) {
    if (value.isEmpty() || value.startsWith("/") || value.endsWith("/") || value.contains("\\")) {
      throw new IllegalArgumentException("Cannot plan the swap of " + name + ": " + what + " \"" + value
          + "\" is not a relative /-separated path");
    }
    for (String part : value.split("/", -1)) {
      if (part.isEmpty() || part.equals(".") || part.equals("..")) {
        throw new IllegalArgumentException("Cannot plan the swap of " + name + ": " + what + " \"" + value
            + "\" has an empty, . or .. part");
      }
    }
  }
}
