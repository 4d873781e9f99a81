package dev.tierlock.spi;

import dev.tierlock.TierlockException;

import org.jspecify.annotations.Nullable;

/**
 * A datastore call failed. The subtype says whether anything may have changed: {@link
 * DatastoreUnavailableException} (nothing changed, retry later), {@link OutcomeUnknownException}
 * (a change may have landed), {@link DatastoreAccessDeniedException} (fix credentials), {@link
 * DatastoreUnsafeException} (the store does not honour preconditions).
 */
public abstract class DatastoreException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception.
   *
   * @param code the stable code
   * @param message the message
   * @param cause the cause, if any
   */
  protected DatastoreException(String code, String message, @Nullable Throwable cause) {
    super(code, message, cause);
  }
}
