package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link Installer#installPinned} ended: one outcome per entry of the shared lockfile, by name.
 *
 * @param outcomes what was done with each entry, sorted by name
 */
public record PinnedInstallResult(List<Outcome> outcomes) {

  /**
   * Copies the list.
   *
   * @param outcomes what was done with each entry, sorted by name
   */
  public PinnedInstallResult {
    outcomes = List.copyOf(outcomes);
  }

  /** {@return the extensions whose archive this run stored in the tier ({@link Outcome.Backfill#STORED})} */
  public List<ExtensionName> backfilled() {
    return outcomes.stream().filter(o -> o.backfill() == Outcome.Backfill.STORED).map(Outcome::name)
        .toList();
  }

  /** {@return the outcomes whose install or backfill failed} */
  public List<Outcome> failures() {
    return outcomes.stream().filter(Outcome::failed).toList();
  }

  /**
   * What {@link Installer#installPinned} did with one entry of the shared lockfile: its files, then its
   * archive in the tier. Each entry's failures are its own: they are kept here, never thrown, and the
   * other entries ran regardless.
   *
   * @param name the extension
   * @param entry its entry as the run read the lockfile
   * @param install what was done with its files
   * @param installed how its install ended; present exactly when {@code install} is {@link
   *     Install#INSTALLED}
   * @param installFailure why its install failed; present exactly when {@code install} is {@link
   *     Install#FAILED}
   * @param backfill what was done with its archive in the tier
   * @param backfillFailure why its backfill failed; present exactly when {@code backfill} is {@link
   *     Backfill#FAILED}
   */
  public record Outcome(ExtensionName name, LockfileEntry entry, Install install,
      Optional<InstallResult> installed, Optional<RuntimeException> installFailure, Backfill backfill,
      Optional<RuntimeException> backfillFailure) {

    /** What was done with an entry's files. */
    public enum Install {
      /**
       * On disk as pinned (the pinned version, its files as the entry's digest records, or none
       * recorded): untouched.
       */
      ALREADY_INSTALLED,
      /** Missing, or at another version than pinned: installed as the lockfile pins it (see {@link #source()}). */
      INSTALLED,
      /**
       * On disk at the pinned version with files other than the entry's digest records: left as they
       * are (an edit is never overwritten; installing the extension by name replaces them).
       */
      LEFT_EDITED,
      /** The install failed; nothing changed for this extension (see {@link #installFailure()}). */
      FAILED
    }

    /** What was done with an entry's archive in the tier. */
    public enum Backfill {
      /** The tier holds an object under the entry's checksum (found by a stat; its bytes are verified when read). */
      PRESENT,
      /**
       * The tier lacked the archive and this run stored it: the bytes its install verified, or the
       * registry's release at the exact version, whose SHA-256 is the entry's checksum and the checksum
       * the registry states. For an entry without a checksum: its install recorded one and stored the
       * archive with it.
       */
      STORED,
      /** The entry pins no checksum, so no archive, and its install (if any) recorded none. */
      UNPINNED,
      /** The tier lacks the archive and no registry is configured: nothing was stored. */
      SKIPPED,
      /** The backfill failed, nothing was stored (see {@link #backfillFailure()}). */
      FAILED
    }

    /**
     * Checks for nulls, and that each optional is present exactly when its step says so.
     *
     * @throws IllegalArgumentException if an optional disagrees with its step
     *
     * @param name the extension
     * @param entry its entry as the run read the lockfile
     * @param install what was done with its files
     * @param installed how its install ended; present exactly when {@code install} is {@link
     *     Install#INSTALLED}
     * @param installFailure why its install failed; present exactly when {@code install} is {@link
     *     Install#FAILED}
     * @param backfill what was done with its archive in the tier
     * @param backfillFailure why its backfill failed; present exactly when {@code backfill} is {@link
     *     Backfill#FAILED}
     */
    public Outcome {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(entry, "entry");
      Objects.requireNonNull(install, "install");
      Objects.requireNonNull(installed, "installed");
      Objects.requireNonNull(installFailure, "installFailure");
      Objects.requireNonNull(backfill, "backfill");
      Objects.requireNonNull(backfillFailure, "backfillFailure");
      if (installed.isPresent() != (install == Install.INSTALLED)
          || installFailure.isPresent() != (install == Install.FAILED)
          || backfillFailure.isPresent() != (backfill == Backfill.FAILED)) {
        throw new IllegalArgumentException("Cannot describe the pinned install of " + name + ": install " + install
            + " with result " + installed.isPresent() + " and failure " + installFailure.isPresent() + ", backfill "
            + backfill + " with failure " + backfillFailure.isPresent());
      }
    }

    /** {@return where the installed archive came from; empty unless {@link Install#INSTALLED}} */
    public Optional<InstallResult.Source> source() {
      return installed.map(r -> r.sources().get(name));
    }

    /** {@return whether its install or its backfill failed} */
    public boolean failed() {
      return install == Install.FAILED || backfill == Backfill.FAILED;
    }
  }
}
