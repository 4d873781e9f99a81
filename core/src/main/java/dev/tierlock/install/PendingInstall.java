package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import java.util.List;
import java.util.Optional;

/**
 * An install swapped in and written into the running transaction, not yet committed: the previous
 * files wait in staging until {@link #commit} deletes them, or {@link #rollback} puts them back.
 * Use it inside the {@link dev.tierlock.TransactionContext#withPulledExtensionsLock} section it was
 * applied in; end it with exactly one of the two before the section ends (an install left open is
 * finished by the next recovery: rolled forward when the lockfile pins it, else back).
 */
public interface PendingInstall {

  /** Returns the extension installed. */
  ExtensionName name();

  /** Returns the manifests swapped in: this extension first, then each dependency installed with it. */
  List<ExtensionManifest> installed();

  /** Returns the lockfile entry before the install, if there was one. */
  Optional<LockfileEntry> previous();

  /** Returns the entry written into the transaction, or empty when the record policy wrote none. */
  Optional<LockfileEntry> written();

  /**
   * Commits: deletes the previous files kept in staging, and has the transaction delete the
   * superseded archive after its publish (never while a lockfile pins it).
   *
   * @throws IllegalStateException if already committed or rolled back
   */
  void commit();

  /**
   * Rolls back: puts the previous files back (the extension as it was, file for file, or gone when
   * it was not installed), for the dependencies too, and restores the previous entry (with its
   * channel and pulledAt) if an entry was written.
   *
   * @throws InstallFailedException if a root cannot be put back (the journal stays, so the next
   *     recovery finishes it)
   * @throws IllegalStateException if already committed or rolled back
   */
  void rollback();
}
