package dev.tierlock.testkit.gcs;

/** Whether a bucket of the {@link GcsFakeServer} honours request preconditions. */
public enum PreconditionMode {
  /** Every precondition is checked atomically with the change it guards (what GCS does). */
  ENFORCED,
  /**
   * Every precondition is ignored: writes and deletes always apply and reads never answer 304.
   * This imitates a broken store, for testing that a client refuses to write to one.
   */
  IGNORED
}
