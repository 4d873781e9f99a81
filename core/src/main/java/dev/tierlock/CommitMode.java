package dev.tierlock;

/**
 * How a {@link LockfileTransaction} excludes other writers of the shared lockfile. Every mode keeps
 * every guarantee of {@link LockfileTransaction#run} among Tierlock writers: each lockfile write is
 * conditional on the version it was built on and carries its commit id and lineage, a change is
 * rebased name by name and never reverts another checkout's change, and no change is dropped
 * without its caller being told. They differ in what a commit costs and in who else may write
 * beside them.
 *
 * <p>{@link #AUTO} (the default) is right for almost everyone: it costs what {@link #OPTIMISTIC}
 * costs while only Tierlock writes the lockfile, and takes the lease like {@link #LOCKED} while a
 * writer that trusts the lease alone (the original tool, which uploads the lockfile unconditionally)
 * is about. Choose {@link #LOCKED} when such a writer shares the datastore for good, and no
 * acknowledged change may be exposed to its first overwrite (see {@link #AUTO}). Choose {@link
 * #OPTIMISTIC} when every writer of the datastore is Tierlock and always will be.
 *
 * <p>In the modes without the lease, a commit that keeps losing races takes a turn: after three races lost in a row, or after any race lost while the
 * global lease is held by another writer (one read of the lease, on the contended path only), it
 * publishes under the lease, so no writer starves and the ones that lose yield to the one that took
 * its turn. A commit that carries an earlier run's pending change does not yield.
 *
 * <p>An archive a change pins is never a reason to take the lease: archives are collected by
 * reachability ({@link ArchiveCollector}) and nothing is deleted on the commit path.
 */
public enum CommitMode {

  /**
   * Every run takes the datastore's global lease, then reads the lockfile (a conditional read:
   * not-modified costs no body), writes it conditionally and releases the lease: four round trips
   * per commit, and writers take turns.
   */
  LOCKED,

  /**
   * A run takes no lease: it runs the change on the lockfile this checkout last saw and publishes
   * straight on that version; when a peer wrote in between, the write is refused, the change is
   * rebased name by name onto the newer lockfile and sent again, after a wait with full jitter, until
   * the transaction deadline. A warm commit nobody raced costs one round trip, three more per race
   * lost (the refused write, the fetch, a read of the lease). A change reads the lockfile as this
   * checkout last saw it, so a change that derives one name's entry from another name's is judged
   * only on the names it writes; use {@link #LOCKED} when that matters.
   *
   * <p>A put of the value a name has in the lockfile this checkout last saw is still checked: when
   * a peer changed that name since, the run reports a conflict instead of dropping the put.
   */
  OPTIMISTIC,

  /**
   * Optimistic while every recent version of the lockfile was written by Tierlock, locked from the
   * moment a version without Tierlock's commit metadata is seen, optimistic again after {@code N}
   * consecutive Tierlock versions ({@code N}: {@link Tierlock.Builder#autoTrustAfter}, default 8,
   * capped by how many commit ids the store's metadata keeps: about 115 on S3 with the default
   * ids). The rule is read from the lockfile's head, not kept by the checkout: every Tierlock
   * version carries its commit id and its parent's lineage, another tool's version carries neither
   * and starts the lineage again, so a head whose lineage holds {@code N} ids had {@code N} Tierlock
   * versions in a row. A batch decides from the head it starts from (the cached one when warm, so
   * a warm commit costs one round trip); a write of it refused for a newer lockfile whose head is
   * not trusted publishes under the lease instead; an absent lockfile is created under the lease.
   *
   * <p><b>The first overwrite.</b> The original tool takes the lease, reads, and writes
   * unconditionally. A Tierlock commit that landed without the lease between that read and that
   * write is overwritten: nothing the store checks can prevent it, since that write has no
   * condition. Tierlock notices at its next look at the lockfile (a refused write, or a fetch) and
   * mitigates: the checkout keeps its commits acknowledged without the lease in the last 10 minutes
   * (at most 64, in memory) and, on first seeing an untrusted head, writes again under the lease,
   * with a warning, each name such a commit set that the foreign version holds at a value one of
   * those commits replaced (the foreign write set it back rather than changing it itself). What it
   * cannot do: re-apply a commit of a process that has exited or of a checkout that does not write
   * again; tell a foreign writer that really meant to set a name back to its old value (it is set
   * again, with the warning); or tell a Tierlock peer that set a name back to exactly the replaced
   * value between the commit and the overwrite. From then on every Tierlock writer takes the lease
   * until {@code N} Tierlock versions in a row, so the original tool's later writes, which respect
   * the lease, overwrite nothing. Use {@link #LOCKED} where that first overwrite is not acceptable.
   */
  AUTO
}
