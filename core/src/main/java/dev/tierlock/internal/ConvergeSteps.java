package dev.tierlock.internal;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.TransactionContext;
import dev.tierlock.install.PendingInstall;
import dev.tierlock.install.PreparedInstall;
import dev.tierlock.install.RecoveryReport;
import java.util.List;
import java.util.Optional;

/**
 * What convergence does with the install engine of one checkout, beyond its public API: look at an
 * extension's files, restore one entry alone from the tier, swap out the files of one the lockfile
 * no longer has, and recover. Implemented by the install engine for an installer in converge mode.
 * Internal.
 */
public interface ConvergeSteps {

  /**
   * What is on disk for one extension, as convergence judges it.
   *
   * @param version the version its live manifest names, empty when there is none (not installed)
   * @param digest the digest of its own files (skills, bundles and nested extensions' roots left
   *     out), empty when its root is not a directory
   * @param missing the files the entry lists under the extension's own root that are not on disk
   */
  record LocalFiles(Optional<String> version, Optional<String> digest, List<String> missing) {}

  /**
   * Returns whether the staging directory holds an install or removal that died (its journal's
   * owner gone), or staging old enough to sweep: what recovery would act on. Looks at no lock.
   *
   * @param left the names of staging directories whose journals recovery left for an operator, ignored
   * @return whether a recovery is due
   */
  boolean needsRecovery(java.util.Set<String> left);

  /**
   * Recovers interrupted installs against the lockfile {@code change} sees.
   *
   * @param change a change holding the pulled-extensions lock
   * @return what recovery did
   */
  RecoveryReport recover(TransactionContext change);

  /**
   * Looks at the files of {@code name}.
   *
   * @param name the extension
   * @param entry its entry, whose files are checked, or empty
   * @param lockfile the lockfile, whose names say which roots nest in it
   * @return what is on disk
   */
  LocalFiles inspect(ExtensionName name, Optional<LockfileEntry> entry, Lockfile lockfile);

  /**
   * Prepares the restore of {@code name} alone, from the tier, as {@code lockfile} pins it.
   *
   * @param name the extension
   * @param lockfile the lockfile
   * @return the staged restore
   */
  PreparedInstall prepare(ExtensionName name, Lockfile lockfile);

  /**
   * Applies a prepared restore inside {@code change}.
   *
   * @param change a change holding the pulled-extensions lock
   * @param prepared the restore
   * @return the pending install, to commit once {@code change} finished
   */
  PendingInstall apply(TransactionContext change, PreparedInstall prepared);

  /**
   * Swaps out the files of {@code name} (its root and bundle roots) under a journal.
   *
   * @param change a change holding the pulled-extensions lock, whose lockfile has no entry for it
   * @param name the extension
   * @return what deletes them for good (run once {@code change} finished), empty when nothing was on disk
   */
  Optional<Runnable> removeFiles(TransactionContext change, ExtensionName name);
}
