package dev.tierlock.archive;

/**
 * An archive is over one of its caps ({@link ArchiveLimits}). It was refused as soon as the excess
 * was seen: before a download when the size was known, otherwise while streaming; nothing was kept.
 * Retrying does not help. Code {@code archive_limit}.
 */
public final class ArchiveLimitException extends ArchiveException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "archive_limit";

  /** The cap that was exceeded. */
  private final ArchiveLimit limit;
  /** The cap's value. */
  private final long max;
  /** The value seen (for streamed measures, the count when the cap was crossed). */
  private final long observed;

  /**
   * Creates the exception.
   *
   * @param source the archive's key or file
   * @param limit the cap that was exceeded
   * @param max the cap's value
   * @param observed the value seen (for streamed measures, the count when the cap was crossed)
   */
  public ArchiveLimitException(String source, ArchiveLimit limit, long max, long observed) {
    super(CODE, source, "Cannot accept archive " + source + ": " + limit.what() + " exceeds the cap "
        + limit.name() + " of " + max + " " + limit.unit() + " (" + observed + " " + limit.unit() + " seen)", null);
    this.limit = limit;
    this.max = max;
    this.observed = observed;
  }

  /** {@return the cap that was exceeded} */
  public ArchiveLimit limit() {
    return limit;
  }

  /** {@return the cap's value} */
  public long max() {
    return max;
  }

  /** {@return the value seen when the archive was refused} */
  public long observed() {
    return observed;
  }
}
