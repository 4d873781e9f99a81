package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import java.util.List;
import java.util.Optional;

/**
 * An install swapped in and written into the running transaction, not yet committed: the previous
 * files wait in staging until {@link #commit} deletes them, or {@link #rollback} puts them back.
 *
 * <pre>{@code
 * AtomicReference<PendingInstall> pending = new AtomicReference<>();
 * tierlock.transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
 *   pending.set(installer.apply(tx, prepared));
 *   try {
 *     catalog.save(...);                 // the embedding tool's own save
 *   } catch (RuntimeException e) {
 *     pending.get().rollback();           // inside the change: the entry goes back too
 *     throw e;
 *   }
 *   return null;
 * }));
 * pending.get().commit();                 // once the lockfile is published (or kept pending)
 * }</pre>
 *
 * <p>Roll back inside the change; commit after {@code run} has returned (or has thrown with the
 * change kept pending), so the previous files are deleted only once a lockfile that no longer
 * names them is published or recorded to be. Until then the install's journal is owned by this
 * process: recovery elsewhere leaves it alone while the process lives, and finishes it after a
 * crash (forward when the lockfile, with any pending change, pins the new archive; else back).
 * {@link Installer#install} does all of this.
 */
public interface PendingInstall {

  /** {@return the extension installed} */
  ExtensionName name();

  /** {@return the manifests swapped in: this extension first, then each dependency installed with it} */
  List<ExtensionManifest> installed();

  /** {@return the lockfile entry before the install, if there was one} */
  Optional<LockfileEntry> previous();

  /** {@return the entry written into the transaction, or empty when the record policy wrote none} */
  Optional<LockfileEntry> written();

  /**
   * Commits: deletes the previous files kept in staging and the journal. (The superseded archive
   * was registered at apply for deletion after the publish, and is kept while a lockfile pins it.)
   *
   * @throws IllegalStateException if the transaction's change is still running, or the install was
   *     already committed or rolled back
   */
  void commit();

  /**
   * Rolls back: puts the previous files back (the extension as it was, file for file, or gone when
   * it was not installed), for the dependencies too, and restores the previous entry (with its
   * channel and pulledAt) if an entry was written.
   *
   * @throws InstallException ({@code install_failed}) if a root cannot be put back (the journal stays, so the next
   *     recovery finishes it)
   * @throws IllegalStateException if the transaction's change has ended, or the install was already
   *     committed or rolled back
   */
  void rollback();
}
