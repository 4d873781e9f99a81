package dev.tierlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * There is no datastore where one was named: a filesystem datastore's directory does not exist. It
 * is never created by opening it, since a mistyped path would otherwise become an empty datastore
 * that no peer shares. Nothing was created or changed. Fix the address, or create the datastore on
 * purpose ({@link DatastoreProvider#create(java.net.URI)}, {@code
 * Tierlock.Builder#createDatastore()}, {@code tierlock init}).
 *
 * <p>Code {@code datastore_missing}.
 */
public final class DatastoreMissingException extends DatastoreException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "datastore_missing";

  /**
   * Creates an exception.
   *
   * @param message the message, naming where the datastore was looked for
   * @param cause the cause, if any
   */
  public DatastoreMissingException(String message, @Nullable Throwable cause) {
    super(CODE, message, cause);
  }
}
