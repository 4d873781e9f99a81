package dev.tierlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * A change was sent to the datastore and no definite answer came back (a timeout, a connection reset after sending, a precondition failure on a retried attempt). The change may or may not have landed: read the state back before deciding; never clean up as if it had failed.
 *
 * <p>Code {@code outcome_unknown}.
 */
public final class OutcomeUnknownException extends DatastoreException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "outcome_unknown";

  /**
   * Creates an exception.
   *
   * @param message the message, naming the key and the datastore
   * @param cause the cause, if any
   */
  public OutcomeUnknownException(String message, @Nullable Throwable cause) {
    super(CODE, message, cause);
  }
}
