package dev.tierlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * An object is larger than the most the caller would read ({@link Datastore#read}'s bound): the
 * lockfile past 16 MiB, a lock record past 64 KiB. Nothing was changed; nothing of the object was
 * kept in memory. The object itself is not at fault for the store, but it cannot be a valid
 * lockfile or lock record: a person has to look at it.
 *
 * <p>Code {@code object_too_large}.
 */
public final class ObjectTooLargeException extends DatastoreException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "object_too_large";

  /** Its size in bytes, or -1 when the store did not say before the bytes ran over. */
  private final long size;
  /** The most the caller would read. */
  private final long limit;

  /**
   * Creates an exception.
   *
   * @param target the object, as the store names it in messages
   * @param size its size in bytes, or -1 when the store did not say before the bytes ran over
   * @param limit the most the caller would read
   * @param cause the cause, if any
   */
  public ObjectTooLargeException(String target, long size, long limit, @Nullable Throwable cause) {
    super(CODE, "Cannot read " + target + ": it " + (size >= 0 ? "has " + size + " bytes" : "is larger than that")
        + ", more than the " + limit + " this read accepts; nothing was changed", cause);
    this.size = size;
    this.limit = limit;
  }

  /** {@return the object's size in bytes, or -1 when unknown} */
  public long size() {
    return size;
  }

  /** {@return the most the read accepted, in bytes} */
  public long limit() {
    return limit;
  }
}
