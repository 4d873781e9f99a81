package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The durable record of one stage-and-swap, written before any other staging directory and read
 * back by the swap itself (ownership, before each phase) and by recovery. Schema {@value
 * #SCHEMA_VERSION}; read and written by {@link InstallJournalCodec}.
 *
 * @param ownerId the install in flight that wrote it (see {@link OwnerIds})
 * @param stagingId the swap's staging id: the name of the directory the journal is in
 * @param extension the extension swapped
 * @param phase how far the swap got
 * @param lockfilePath the lockfile the install writes
 * @param newChecksum the new archive's SHA-256, or {@code null} for a removal
 * @param oldManifestDigest the SHA-256 of the live manifest's bytes before the swap, or {@code null} when there was none
 * @param newManifestDigest the SHA-256 of the new manifest's bytes, or {@code null} for a removal
 * @param roots every root, the extension root first
 * @param manifest where the new manifest waits and where it goes
 * @param nestedRoots the other extensions' roots copied from the live extension root into the new one
 */
record InstallJournal(String ownerId, String stagingId, ExtensionName extension, Phase phase, String lockfilePath,
    @Nullable String newChecksum, @Nullable String oldManifestDigest, @Nullable String newManifestDigest,
    List<Root> roots, Manifest manifest, List<Nested> nestedRoots) {

  /** The schema written and the only one read. */
  static final int SCHEMA_VERSION = 1;

  /** How far a swap got. */
  enum Phase {
    /** Staged, or swapping: recovery rolls it back. */
    STAGED,
    /** Every root swapped: recovery rolls it forward if the lockfile pins the new checksum. */
    SWAPPED
  }

  /**
   * One root, with the staging paths derived for it.
   *
   * @param index its position, {@code 0} for the extension root
   * @param role the extension root or a bundle root
   * @param live the live directory
   * @param stagingDir the staging directory holding its {@code old/}, {@code new/} and {@code discard/}
   * @param old where the live content waits once moved out
   * @param incoming where the new content waits until moved in (the journal's {@code new})
   * @param liveExisted whether the live directory existed when staged
   * @param hasNew whether the root gets content back in phase 2 (new content, or only copied nested roots)
   */
  record Root(int index, SwapRoot.Role role, Path live, Path stagingDir, Path old, Path incoming, boolean liveExisted,
      boolean hasNew) {

    /** Checks the paths are given. */
    Root {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(live, "live");
      Objects.requireNonNull(stagingDir, "stagingDir");
      Objects.requireNonNull(old, "old");
      Objects.requireNonNull(incoming, "incoming");
    }

    /** Returns where a rollback puts the new content moved back out of the live directory. */
    Path discard() {
      return StagingPaths.discard(stagingDir, index);
    }
  }

  /**
   * The manifest, which goes in last.
   *
   * @param staged the file the new manifest waits in, or {@code null} for a removal
   * @param live its live path under the extension root
   */
  record Manifest(@Nullable Path staged, Path live) {

    /** Checks the live path is given. */
    Manifest {
      Objects.requireNonNull(live, "live");
    }
  }

  /**
   * A nested extension root carried across the swap.
   *
   * @param relDir its directory relative to the extension root, {@code /}-separated
   */
  record Nested(String relDir) {

    /** The only strategy: the nested root is copied into the new extension root. */
    static final String COPIED = "copied";

    /** Checks the directory is given. */
    Nested {
      Objects.requireNonNull(relDir, "relDir");
    }
  }

  /** Copies the lists and checks the required parts. */
  InstallJournal {
    Objects.requireNonNull(ownerId, "ownerId");
    Objects.requireNonNull(stagingId, "stagingId");
    Objects.requireNonNull(extension, "extension");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(lockfilePath, "lockfilePath");
    Objects.requireNonNull(manifest, "manifest");
    roots = List.copyOf(roots);
    nestedRoots = List.copyOf(nestedRoots);
  }

  /** Returns whether the swap removes the extension. */
  boolean isRemoval() {
    return newChecksum == null;
  }

  /** Returns this journal at {@code value}. */
  InstallJournal withPhase(Phase value) {
    return new InstallJournal(ownerId, stagingId, extension, value, lockfilePath, newChecksum, oldManifestDigest,
        newManifestDigest, roots, manifest, nestedRoots);
  }

  /** Returns the extension root. */
  Root extensionRoot() {
    return roots.get(0);
  }
}
