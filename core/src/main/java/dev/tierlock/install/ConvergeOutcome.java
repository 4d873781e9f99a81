package dev.tierlock.install;

/** How a convergence pass ended as a whole (what happened to each entry is in the rest of the {@link ConvergeReport}). */
public enum ConvergeOutcome {
  /** The pass ran: each entry is restored, verified, removed, pending or unrestorable. */
  CONVERGED,
  /** Nothing was due: the lockfile is the one the last pass converged to, and no retry is due. */
  UNCHANGED,
  /**
   * Another install, removal or convergence of this checkout holds its pulled-extensions lock (or
   * changed the lockfile during the pass): nothing was swapped; the next pass tries again.
   */
  BUSY,
  /**
   * This checkout's pending-change record cannot be read, so what it pins here is unknown (it may
   * hold an install not yet published), or an interrupted install left a journal that names no
   * extension: nothing was swapped until it is resolved (the record re-applied or discarded, the
   * journal's staging looked at and removed), as every transaction (or install) of the checkout is
   * refused until then.
   */
  BLOCKED,
  /** The datastore holds no shared lockfile: nothing was touched. */
  NO_LOCKFILE,
  /** The shared lockfile does not parse: nothing was touched. */
  LOCKFILE_UNREADABLE,
  /** The shared lockfile could not be read (the store failed, refused or was interrupted): nothing was touched. */
  UNAVAILABLE
}
