package dev.tierlock.archive;

/**
 * A lockfile entry cannot be restored from the tier: it has no {@code checksum} (so it pins no
 * archive), or the datastore holds no object for the archive it pins. Nothing was downloaded,
 * cached or extracted. The archive has to be stored again by a checkout that has its bytes (an
 * install or a backfill); retrying the restore alone does not help. Code {@code archive_missing}.
 */
public final class ArchiveMissingException extends ArchiveException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "archive_missing";

  /**
   * Creates the exception.
   *
   * @param source the archive's key ({@code <name>@<sha256>}), or the extension name when the entry
   *     pins no archive
   * @param reason why, such as {@code its lockfile entry has no checksum}
   */
  public ArchiveMissingException(String source, String reason) {
    super(CODE, source, "Cannot restore archive " + source + ": " + reason, null);
  }
}
