package dev.tierlock.install;

/** Whether an install writes the extension's entry into the shared lockfile (and its archive into the tier). */
public enum RecordPolicy {
  /** Always: the entry says what was installed, and the archive is stored (the default). */
  ALWAYS,
  /**
   * Only when the lockfile has no entry for the extension, or its entry has no checksum: a restore
   * of a pinned entry leaves the entry as it is.
   */
  IF_MISSING_CHECKSUM,
  /** Never: the files are installed and the lockfile and the tier are left alone (convergence). */
  NEVER
}
