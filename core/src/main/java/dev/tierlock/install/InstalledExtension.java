package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import java.util.Objects;
import java.util.Optional;

/**
 * One extension as the disk and the shared lockfile see it ({@link Installer#installed}).
 *
 * @param name the extension
 * @param installedVersion the version its live manifest names, or empty when it is not on disk
 *     (or its manifest cannot be read)
 * @param entry its entry in the shared lockfile, if any
 * @param state how the two compare
 */
public record InstalledExtension(ExtensionName name, Optional<String> installedVersion, Optional<LockfileEntry> entry,
    State state) {

  /** How the disk compares with the lockfile. */
  public enum State {
    /** On disk at the version the lockfile pins, and its files digest as the entry records (or it records none). */
    MATCHES,
    /** On disk at the pinned version, but its files are not those the entry's {@code filesChecksum} records. */
    EDITED,
    /**
     * On disk at another version than the lockfile pins (for a constraint pin such as {@code ^1.2},
     * a version it does not accept).
     */
    OTHER_VERSION,
    /** Pinned by the lockfile, not on disk. */
    MISSING,
    /** On disk, not in the lockfile. */
    UNRECORDED
  }

  /**
   * Checks for nulls.
   *
   * @param name the extension
   * @param installedVersion the version its live manifest names, or empty when it is not on disk
   *     (or its manifest cannot be read)
   * @param entry its entry in the shared lockfile, if any
   * @param state how the two compare
   */
  public InstalledExtension {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(installedVersion, "installedVersion");
    Objects.requireNonNull(entry, "entry");
    Objects.requireNonNull(state, "state");
  }
}
