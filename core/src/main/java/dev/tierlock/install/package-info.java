/**
 * The install engine: puts an extension's files on disk safely, together with its lockfile entry
 * and its archive in the tier; and convergence, the same engine run toward the shared lockfile.
 *
 * <ul>
 *   <li>The embedding tool implements the ports: {@link dev.tierlock.install.ExtensionRegistry}
 *       (where releases come from, optional), {@link dev.tierlock.install.ExtensionLayout} (where
 *       extension roots live and how a manifest reads), {@link dev.tierlock.install.SafetyAnalyzer}
 *       (optional) and its own catalog save between the swap and the commit.
 *   <li>{@link dev.tierlock.install.Installer} prepares with no lock held (from the tier when the
 *       lockfile pins a checksum, else from the registry; verified; extracted into staging), then
 *       applies inside a transaction under the pulled-extensions lock: recovery of interrupted
 *       installs, a journaled stage-and-swap, the lockfile entry, dependencies; the {@link
 *       dev.tierlock.install.PendingInstall} it returns commits or rolls back across the catalog
 *       save.
 *   <li>{@link dev.tierlock.install.Converger} brings every checkout sharing a datastore to exactly
 *       the extensions the shared lockfile pins, restored from the tier's archives alone, cheaply (a
 *       pass with nothing to do costs one conditional read, or none), with backoff for what failed;
 *       its {@link dev.tierlock.install.ConvergePoller poller} tells a long-running embedder when to
 *       reload. It never calls a registry, never writes the lockfile or the tier, and reports what
 *       each entry did instead of throwing ({@link dev.tierlock.install.ConvergeReport}).
 * </ul>
 *
 * <p>Every failure is an {@link dev.tierlock.install.InstallException} (codes {@code
 * registry_unavailable}, {@code registry_not_found}, {@code install_manifest_mismatch}, {@code
 * install_unsafe}, {@code install_journal_invalid}, {@code install_failed}; and {@code install_busy}
 * and {@code install_stale} as an {@link dev.tierlock.install.InstallBusyException}: run it again),
 * an archive failure ({@link dev.tierlock.archive.ArchiveException}) or a transaction's ({@link
 * dev.tierlock.TierlockException}).
 */
@NullMarked
package dev.tierlock.install;

import org.jspecify.annotations.NullMarked;
