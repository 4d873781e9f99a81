package dev.tierlock;

/**
 * The levels of Tierlock's locks, outermost first. A thread takes them only in this order ({@link
 * LockOrder}): taking an outer level while holding an inner one is a programming error, refused
 * with an {@link IllegalStateException}.
 *
 * <p>The checkout's transaction lock is a level of its own but shares the global lock's place in
 * the order ({@link #rank}): a run takes it right after the global lease, and the change of a run
 * on one checkout may run a transaction of another checkout, or take another store's global lock,
 * on the same thread (its locks are other locks). Only the pulled-extensions lock is inner to them.
 */
enum LockLevel {
  /** The datastore global lock, a lease held across network I/O by a transaction. */
  GLOBAL(0),
  /**
   * The checkout's transaction lock, taken right after the global lock, or alone (a refresh, an
   * optimistic run, discarding a pending change).
   */
  CHECKOUT(0),
  /** The checkout's pulled-extensions lock, taken inside a run or alone; innermost. */
  PULLED_EXTENSIONS(1);

  /** The place in the order: a thread holding a level may take levels of this rank or higher only. */
  final int rank;

  LockLevel(int rank) {
    this.rank = rank;
  }
}
