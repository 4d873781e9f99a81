package dev.tierlock;

import org.jspecify.annotations.Nullable;

/**
 * Whether a lockfile write whose answer was lost (or whose process died) landed, judged from the
 * shared lockfile as it is now. Only a proof counts: versions can repeat on some stores (an S3 ETag
 * is a digest of the bytes, so a peer that reverts a change restores the old ETag), so a version is
 * trusted only together with its commit id. Stateless.
 */
enum Landing {

  /** The write landed: its commit is the current version or one the current version was built on. */
  LANDED,

  /** The write did not land: the shared lockfile is still exactly the version it was conditioned on. */
  NOT_LANDED,

  /**
   * Neither can be proven: the shared lockfile moved on and its lineage (which reaches only so far,
   * and breaks at a write by another tool) does not include the write. Re-applying the write could
   * revert a peer's change, so the write's names must not be re-applied.
   */
  UNKNOWN;

  /**
   * Judges commit {@code commitId}, written conditional on {@code parent}, against {@code now}.
   *
   * @param parent the version the write was conditioned on, or {@code null} when it was a create
   * @param now the shared lockfile now, or {@code null} when it does not exist
   */
  static Landing of(String commitId, @Nullable LockfileHead parent, @Nullable LockfileHead now) {
    if (now != null && now.includes(commitId)) {
      return LANDED;
    }
    if (parent == null) {
      return now == null ? NOT_LANDED : UNKNOWN;
    }
    if (now != null && now.version().equals(parent.version()) && now.commitId().equals(parent.commitId())) {
      return NOT_LANDED;
    }
    return UNKNOWN;
  }
}
