package dev.tierlock.install;

/** Where a prepared extension's archive came from. */
public enum InstallSource {
  /** The tier's archive store: the lockfile entry's checksum named it, and its bytes matched. */
  TIER,
  /** The registry: the tier did not have it (or the entry had no checksum). */
  REGISTRY
}
