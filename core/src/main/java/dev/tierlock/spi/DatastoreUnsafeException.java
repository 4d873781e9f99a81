package dev.tierlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * The datastore does not honour write preconditions (a create-only write over an existing object
 * succeeded), or cannot carry what a safe write needs (its metadata has no room for a commit id), so
 * no write to it could be safe. Tierlock refuses to write to it.
 *
 * <p>Code {@code datastore_unsafe}.
 */
public final class DatastoreUnsafeException extends DatastoreException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "datastore_unsafe";

  /**
   * Creates an exception.
   *
   * @param message the message, naming the key and the datastore
   * @param cause the cause, if any
   */
  public DatastoreUnsafeException(String message, @Nullable Throwable cause) {
    super(CODE, message, cause);
  }
}
