package dev.tierlock;

/** What a transaction does when its change cannot be published. In every case the change is kept pending. */
public enum PublishFailurePolicy {
  /** Throw {@link ManagedConfigUnpublishedException} (the default; command-line tools). */
  THROW,
  /**
   * Log a warning and return {@link TransactionStatus#DEFERRED} (long-running servers, where the
   * next transaction publishes it).
   */
  DEFER
}
