package dev.tierlock.archive;

import org.jspecify.annotations.Nullable;

/**
 * The thread was interrupted while reading or storing an archive. The partial bytes were discarded
 * and nothing was cached; the interrupt flag is set again. Code {@code archive_cancelled}.
 */
public final class ArchiveCancelledException extends ArchiveException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "archive_cancelled";

  /**
   * Creates the exception and sets the current thread's interrupt flag again.
   *
   * @param source the archive's key or file
   * @param verb what was being done, such as {@code read} or {@code store}
   * @param cause the interruption seen by an I/O call, if any
   */
  public ArchiveCancelledException(String source, String verb, @Nullable Throwable cause) {
    super(CODE, source, "Cannot " + verb + " archive " + source + ": the thread was interrupted; nothing was cached",
        cause);
    Thread.currentThread().interrupt();
  }
}
