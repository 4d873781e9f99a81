package dev.tierlock.testkit;

/**
 * One call a {@link FaultyDatastore} saw. Immutable.
 *
 * <p>Conditions read {@code "none"}, {@code "mustNotExist"}, {@code "mustMatch(v3)"} for writes and
 * deletes, {@code "always"} or {@code "ifNoneMatch(v3)"} for reads, and {@code "always"} for
 * downloads, stats and listings. Outcomes read {@code FOUND}, {@code ABSENT}, {@code NOT_MODIFIED},
 * {@code WRITTEN}, {@code PRECONDITION_FAILED}, {@code DELETED}, {@code LISTED:<count>}; an injected
 * fault reads {@code FAULT:<name>} ({@link Fault} names, {@code OFFLINE}, {@code BROKEN_STREAM},
 * {@code CORRUPTED}, {@code NON_ATOMIC} for a call that {@link Faults#nonAtomicPreconditions} let
 * land); an exception thrown by the wrapped store reads {@code ERROR:<code>} for a {@link
 * dev.tierlock.TierlockException} and {@code ERROR:<simple class name>} otherwise.
 *
 * @param operation the operation
 * @param target the key, or the prefix for {@link DatastoreOperation#LIST} (possibly empty)
 * @param condition the condition, as described above
 * @param outcome the outcome, as described above
 */
public record LoggedOperation(DatastoreOperation operation, String target, String condition, String outcome) {

  /**
   * Validates the values.
   *
   * @param operation the operation
   * @param target the key, or the prefix for {@link DatastoreOperation#LIST} (possibly empty)
   * @param condition the condition, as described above
   * @param outcome the outcome, as described above
   * @throws IllegalArgumentException if {@code condition} or {@code outcome} is blank
   */
  public LoggedOperation {
    if (condition.isBlank() || outcome.isBlank()) {
      throw new IllegalArgumentException(
          "Cannot log operation " + operation + " on \"" + target + "\": condition and outcome are never blank");
    }
  }

  /** {@return whether an injected fault decided this call's outcome} */
  public boolean faulted() {
    return outcome.startsWith("FAULT:");
  }
}
