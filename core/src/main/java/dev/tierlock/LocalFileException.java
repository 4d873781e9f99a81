package dev.tierlock;

/**
 * A local file of the checkout (the cached lockfile, a lock file, the pending-change record) could
 * not be read or written. What the message names was left as it was: the old bytes or the new bytes,
 * never a mix. Code {@code local_io}.
 */
public final class LocalFileException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "local_io";

  /**
   * Creates the exception.
   *
   * @param message the message, {@code Cannot <verb> <path>: <reason>}
   * @param cause the I/O failure
   */
  public LocalFileException(String message, Throwable cause) {
    super(CODE, message, cause);
  }
}
