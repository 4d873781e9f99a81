package dev.tierlock;

/**
 * A publish named a path that must never be uploaded: an internal file, or a file that resolves
 * (through links) outside the cache root, or a lockfile that does not decode. Nothing was uploaded.
 * A programming or local-state error; retrying does not help. Code {@code publish_refused}.
 */
public final class PublishRefusedException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "publish_refused";

  /**
   * Creates the exception.
   *
   * @param message the message, naming the path and why
   * @param cause the cause, if any
   */
  public PublishRefusedException(String message, @org.jspecify.annotations.Nullable Throwable cause) {
    super(CODE, message, cause);
  }
}
