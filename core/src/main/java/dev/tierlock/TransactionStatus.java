package dev.tierlock;

/** How a transaction ended. */
public enum TransactionStatus {
  /** The change left the lockfile as it was, and nothing was pending: nothing was published. */
  NO_CHANGE,
  /** The change is in the shared lockfile (published now, or found already there). */
  PUBLISHED,
  /**
   * The change is made locally and kept pending, to be published by a later transaction ({@link
   * PublishFailurePolicy#DEFER}).
   */
  DEFERRED
}
