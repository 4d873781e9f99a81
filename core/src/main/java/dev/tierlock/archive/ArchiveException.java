package dev.tierlock.archive;

import dev.tierlock.TierlockException;
import org.jspecify.annotations.Nullable;

/**
 * An archive could not be read, stored, listed or extracted. The subtype says why and what the
 * caller can do next; in every case nothing partial was left behind (no unverified bytes in the
 * cache, no files in a staging directory the extractor emptied).
 */
public abstract sealed class ArchiveException extends TierlockException
    permits ArchiveLimitException, ArchiveRejectedException, ArchiveTamperedException, ArchiveCorruptException,
        ArchiveIoException, ArchiveTimeoutException, ArchiveCancelledException, ArchiveMissingException {

  private static final long serialVersionUID = 1L;

  /** What the archive was: its key ({@code <name>@<sha256>}) or its file. */
  private final String source;

  ArchiveException(String code, String source, String message, @Nullable Throwable cause) {
    super(code, message, cause);
    this.source = source;
  }

  /** {@return what the archive was: its key ({@code <name>@<sha256>}) or its file} */
  public String source() {
    return source;
  }
}
