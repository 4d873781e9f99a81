package dev.tierlock.archive;

/**
 * A local file or directory (the archive cache, a staging directory, an archive file the caller
 * named) could not be read or written. What the message names was left as it was, or removed when
 * it was partial. May be retried once the local problem (space, permissions) is fixed. Code {@code
 * archive_io}.
 */
public final class ArchiveIoException extends ArchiveException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "archive_io";

  /**
   * Creates the exception.
   *
   * @param source the archive's key or file
   * @param message the message, {@code Cannot <verb> <path>: <reason>}
   * @param cause the I/O failure
   */
  public ArchiveIoException(String source, String message, Throwable cause) {
    super(CODE, source, message, cause);
  }
}
