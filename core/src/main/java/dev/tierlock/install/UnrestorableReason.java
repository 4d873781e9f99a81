package dev.tierlock.install;

/**
 * Why an entry cannot be restored from the tier. An unrestorable entry is not tried again until its
 * lockfile entry changes, or a full pass ({@link Converger#convergeFully()}) is asked for.
 */
public enum UnrestorableReason {
  /** The entry has no checksum, so it pins no archive. */
  UNPINNED,
  /** The tier holds no archive for the entry's checksum. */
  ARCHIVE_MISSING,
  /** The tier's archive does not hash to the entry's checksum. */
  TAMPERED,
  /** The archive is over a size or entry-count cap. */
  LIMIT,
  /** The archive is corrupt or holds a hostile entry (an escape, a link out, a device). */
  REJECTED,
  /** The archive's manifest names another extension or version than the entry pins. */
  MANIFEST_MISMATCH,
  /** The safety analysis refused the archive's files. */
  UNSAFE,
  /** An interrupted install of it cannot be judged: it is left for an operator. */
  JOURNAL
}
