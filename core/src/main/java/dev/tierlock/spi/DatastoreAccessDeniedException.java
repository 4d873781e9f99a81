package dev.tierlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * The datastore refused the call for want of credentials or permissions. Nothing changed; retrying will not help.
 *
 * <p>Code {@code access_denied}.
 */
public final class DatastoreAccessDeniedException extends DatastoreException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "access_denied";

  /**
   * Creates an exception.
   *
   * @param message the message, naming the key and the datastore
   * @param cause the cause, if any
   */
  public DatastoreAccessDeniedException(String message, @Nullable Throwable cause) {
    super(CODE, message, cause);
  }
}
