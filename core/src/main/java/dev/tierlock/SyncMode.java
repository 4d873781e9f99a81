package dev.tierlock;

/** How a checkout reaches the shared lockfile. */
public enum SyncMode {
  /**
   * Through a local cache of the config tier: {@link ManagedLockfileSyncPort#hydrate()} fetches the
   * shared lockfile, {@link ManagedLockfileSyncPort#publish} uploads changes conditionally (S3, GCS,
   * the fake remote).
   */
  REMOTE,
  /**
   * In place: the shared lockfile is a file every checkout reaches, edited under OS locks with
   * atomic renames; hydrate and publish do nothing (a shared filesystem).
   */
  DIRECT
}
