package dev.tierlock.spi;

/** The outcome of {@link Datastore#delete}. */
public enum DeleteResult {
  /** The object was deleted. */
  DELETED,
  /** No object existed at the key (and, for a conditional delete, nothing changed). */
  ABSENT,
  /**
   * The object exists but its version did not match; nothing changed. As with writes, reported
   * only when no attempt of this call may have been applied.
   */
  PRECONDITION_FAILED
}
