package dev.tierlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * The bytes of a write could not be read from the caller's {@link ObjectBody} (its file vanished,
 * its stream failed, or it yielded another length than it declared). Nothing changed in the store.
 *
 * <p>Code {@code object_body_unreadable}.
 */
public final class ObjectBodyUnreadableException extends DatastoreException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "object_body_unreadable";

  /**
   * Creates an exception.
   *
   * @param message the message, naming the key
   * @param cause the cause, if any
   */
  public ObjectBodyUnreadableException(String message, @Nullable Throwable cause) {
    super(CODE, message, cause);
  }
}
