package dev.tierlock;

import org.jspecify.annotations.Nullable;

/**
 * Whether a lockfile write whose answer was lost (or whose process died) landed, judged from the
 * shared lockfile as it is now. Only a proof counts. Stateless.
 *
 * <p>The proofs rest on one fact: a write conditioned on version P lands only while P is current,
 * so it becomes P's successor in the chain of commit lineages ({@link LockfileHead}), or nothing.
 * Hence: our commit id in the current lineage means it landed; the current version still being P
 * means not yet, where that can be told: same version and commit id (commit ids never repeat), or,
 * for a P without a commit id (written by another tool), the same version on a store whose
 * versions never repeat (on S3 an ETag is a digest of the bytes, so another tool writing P's bytes
 * again after ours landed looks like P); P in the current lineage followed by another commit means
 * P's successor is someone else's, so ours did not land there. A write could still land later on a version whose bytes equal
 * P's (an S3 ETag repeating): it then lands on exactly P's content and reverts no peer's change, so
 * judging it "not landed" and re-applying its names (which the rebase finds already there) is safe.
 * Anything else (the lineage does not reach P, the lockfile was deleted, a create whose key is now
 * taken) cannot be proven either way.
 */
enum Landing {

  /** The write landed: its commit is the current version or one the current version was built on. */
  LANDED,

  /** The write did not land on its parent: the parent is still current, or has another successor. */
  NOT_LANDED,

  /**
   * Neither can be proven: the shared lockfile moved on and its lineage (which reaches only so far,
   * and breaks at a write by another tool) does not show the parent's successor. Re-applying the
   * write could revert a peer's change, so its names must not be re-applied without the caller's say.
   */
  UNKNOWN;

  /**
   * Judges commit {@code commitId}, written conditional on {@code parent}, against {@code now}.
   *
   * @param parent the version the write was conditioned on, or {@code null} when it was a create
   * @param now the shared lockfile now, or {@code null} when it does not exist
   * @param versionsRepeat whether the store's versions can repeat ({@link
   *     dev.tierlock.spi.Datastore#versionsRepeat()})
   */
  static Landing of(String commitId, @Nullable LockfileHead parent, @Nullable LockfileHead now, boolean versionsRepeat) {
    if (now != null && now.includes(commitId)) {
      return LANDED;
    }
    if (parent == null) {
      return now == null ? NOT_LANDED : UNKNOWN;
    }
    if (now == null) {
      return UNKNOWN;
    }
    if (now.version().equals(parent.version()) && now.commitId().equals(parent.commitId())
        && (parent.commitId().isPresent() || !versionsRepeat)) {
      return NOT_LANDED;
    }
    if (parent.commitId().isPresent()) {
      int at = now.lineage().indexOf(parent.commitId().get());
      if (at > 0) {
        return NOT_LANDED;
      }
    }
    return UNKNOWN;
  }
}
