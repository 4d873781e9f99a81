package dev.tierlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * The datastore could not be reached or refused the call for now (refused connection, throttling, a server error before any effect); nothing changed. Retryable.
 *
 * <p>Code {@code datastore_unavailable}.
 */
public final class DatastoreUnavailableException extends DatastoreException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "datastore_unavailable";

  /**
   * Creates an exception.
   *
   * @param message the message, naming the key and the datastore
   * @param cause the cause, if any
   */
  public DatastoreUnavailableException(String message, @Nullable Throwable cause) {
    super(CODE, message, cause);
  }
}
