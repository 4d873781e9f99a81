package dev.tierlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * A change could not start because another writer holds the store's own lock on the key past the
 * store's wait (a filesystem datastore's per-key lock held by a process that is stopped, for
 * instance). Nothing changed; retry later. The message names the holder when the store knows it.
 *
 * <p>Code {@code datastore_busy}.
 */
public final class DatastoreBusyException extends DatastoreException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "datastore_busy";

  /**
   * Creates an exception.
   *
   * @param message the message, naming the key and, when known, the holder
   * @param cause the cause, if any
   */
  public DatastoreBusyException(String message, @Nullable Throwable cause) {
    super(CODE, message, cause);
  }
}
