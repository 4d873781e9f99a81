package dev.tierlock.testkit;

/**
 * What an injected fault does to one call of a {@link FaultyDatastore}. Every fault throws one of
 * the exceptions the {@link dev.tierlock.spi.Datastore} contract allows, so code under test sees
 * exactly what a real backend would report.
 */
public enum Fault {
  /** The call is not applied; it throws {@link dev.tierlock.spi.DatastoreUnavailableException}. */
  UNAVAILABLE,
  /**
   * The call is not applied; it throws {@link dev.tierlock.spi.DatastoreUnavailableException} whose
   * message says the store throttled it (HTTP 429, or 503 SlowDown on S3).
   */
  THROTTLED,
  /**
   * The call is not applied; it throws {@link dev.tierlock.spi.DatastoreBusyException}, as a store
   * does for a key written more often than it allows (GCS: about once a second per object) or while
   * its own lock on the key is held.
   */
  BUSY,
  /** The call is not applied; it throws {@link dev.tierlock.spi.DatastoreAccessDeniedException}. */
  ACCESS_DENIED,
  /**
   * The call is not applied, but the caller cannot know that: a write or delete throws {@link
   * dev.tierlock.spi.OutcomeUnknownException}, a read, stat, list or download throws {@link
   * dev.tierlock.spi.DatastoreUnavailableException}.
   */
  TIMEOUT_BEFORE_APPLY,
  /**
   * The call <em>is</em> applied, then its answer is lost: a write or delete throws {@link
   * dev.tierlock.spi.OutcomeUnknownException} although it landed (or failed its precondition); a read,
   * stat, list or download throws {@link dev.tierlock.spi.DatastoreUnavailableException} after reading.
   */
  LOSE_RESPONSE
}
