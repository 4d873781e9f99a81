package dev.tierlock;

/**
 * The levels of Tierlock's locks, outermost first. A thread takes them only in this order: taking
 * an outer level while holding an inner one is a programming error, rejected with {@link
 * LockOrderException}.
 */
public enum LockLevel {
  /**
   * The datastore global lock, held across network I/O by a transaction, and the checkout's own
   * transaction lock, taken right after it (or alone, by a refresh with nothing pending).
   */
  GLOBAL,
  /** The per-checkout pulled-extensions lock. */
  PULLED_EXTENSIONS,
  /** The lockfile's own short local lock, innermost. */
  LOCKFILE
}
