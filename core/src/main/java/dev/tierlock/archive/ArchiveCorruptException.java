package dev.tierlock.archive;

import org.jspecify.annotations.Nullable;

/**
 * An archive is not a well-formed {@code .tar.gz}: not gzip, not tar, truncated, a tar whose
 * headers declare more data than it holds, or data after the end of the archive. Nothing was kept.
 * Code {@code archive_corrupt}.
 */
public final class ArchiveCorruptException extends ArchiveException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "archive_corrupt";

  /**
   * Creates the exception.
   *
   * @param source the archive's key or file
   * @param reason what is wrong
   * @param cause the parser's failure, if any
   */
  public ArchiveCorruptException(String source, String reason, @Nullable Throwable cause) {
    super(CODE, source, "Cannot read archive " + source + ": not a well-formed tar.gz (" + reason + ")", cause);
  }
}
