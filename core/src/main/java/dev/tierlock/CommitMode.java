package dev.tierlock;

/**
 * How a {@link LockfileTransaction} excludes other writers of the shared lockfile. Both modes keep
 * every guarantee of {@link LockfileTransaction#run}: each lockfile write is conditional on the
 * version it was built on and carries its commit id and lineage, a change is rebased name by name
 * and never reverts another checkout's change, and no change is dropped without its caller being
 * told. They differ in what a commit costs and in who else may write beside them.
 *
 * <p>Choose {@link #LOCKED} (the default) when any writer of the datastore trusts the global lock
 * alone, such as the original tool, which uploads the lockfile unconditionally: only the lock keeps
 * such a writer from overwriting a commit. Choose {@link #OPTIMISTIC} when every writer of the
 * datastore is Tierlock (in either mode): a commit then costs one round trip when nobody else wrote
 * since this checkout last saw the lockfile, and writers never wait on each other's lease.
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
   * the transaction deadline. A warm commit nobody raced costs one round trip, two more per race lost.
   * A change reads the lockfile as this checkout last saw it, so a change that derives one name's
   * entry from another name's is judged only on the names it writes; use {@link #LOCKED} when that
   * matters.
   *
   * <p>A run whose change pins an archive its starting lockfile did not pin for that name, stores one,
   * or deletes a superseded one, takes the global lease for its publish in this mode too: under it,
   * an archive the change stored is checked to be still in the tier (stored again if a peer deleted
   * it as superseded meanwhile) before the lockfile that pins it is written, so deleting an archive
   * and pinning it again never interleave, whatever mix of modes shares the datastore.
   *
   * <p>A put of the value a name has in the lockfile this checkout last saw is still checked: when
   * a peer changed that name since, the run reports a conflict instead of dropping the put.
   */
  OPTIMISTIC
}
