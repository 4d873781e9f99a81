package dev.tierlock.archive;

/** The rule a hostile or unsupported entry broke, reported by {@link ArchiveException} ({@code archive_rejected}). */
public enum ArchiveRule {
  /** An entry has an empty name. */
  EMPTY_NAME("an entry has a name"),
  /** A name or link target holds NUL or another control character. */
  CONTROL_CHARACTER("names and link targets hold no NUL or control character"),
  /** A name or link target is not valid UTF-8. */
  INVALID_ENCODING("names and link targets are valid UTF-8"),
  /** A name or link target holds a backslash (a separator on Windows). */
  BACKSLASH("names and link targets hold no backslash"),
  /** A name is absolute: a leading {@code /} or a Windows drive such as {@code C:}. */
  ABSOLUTE_PATH("entry names are relative: no leading '/' and no drive letter"),
  /** A name holds a {@code ..} segment. */
  PARENT_REFERENCE("entry names hold no '..' segment"),
  /** A name segment is longer than filesystems accept. */
  SEGMENT_TOO_LONG("a name segment has at most 255 bytes of UTF-8"),
  /** A non-directory entry names the archive root ({@code ./}). */
  ROOT_ENTRY("only a directory may name the archive root"),
  /** A path appears twice, or names a directory that earlier entries implied. */
  DUPLICATE("each path appears once"),
  /** An entry lies under a path that an earlier entry made a file. */
  PARENT_NOT_DIRECTORY("an entry's parent is a directory, not a file"),
  /** An entry lies under a symbolic link of the archive. */
  THROUGH_SYMLINK("no entry lies under a symbolic link"),
  /** A link target is absolute. */
  ABSOLUTE_LINK_TARGET("link targets are relative"),
  /** A link resolves outside the archive root, directly or through other links of the archive. */
  LINK_ESCAPES("links resolve inside the archive"),
  /** A symbolic link does not resolve within a bounded number of steps. */
  LINK_LOOP("symbolic links resolve in at most 40 links and 4096 steps"),
  /** A hard link does not name an earlier regular file of the archive. */
  HARD_LINK_TARGET("a hard link names an earlier regular file of the archive"),
  /** A character device, block device or FIFO. */
  SPECIAL_FILE("no device or FIFO entries"),
  /** A sparse entry (GNU or PAX sparse formats). */
  SPARSE("no sparse entries"),
  /** Any other entry type. */
  UNSUPPORTED_TYPE("entries are regular files, directories, symbolic links or hard links");

  private final String description;

  ArchiveRule(String description) {
    this.description = description;
  }

  /** {@return the rule in words, for messages} */
  public String description() {
    return description;
  }
}
