/**
 * The install engine: puts an extension's files on disk safely, together with its lockfile entry
 * and its archive in the tier.
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
 * </ul>
 *
 * <p>Every failure is an {@link dev.tierlock.install.InstallException} (codes {@code
 * registry_unavailable}, {@code registry_not_found}, {@code install_manifest_mismatch}, {@code
 * install_unsafe}, {@code install_journal_invalid}, {@code install_busy}, {@code install_stale}, {@code install_failed}), an archive failure
 * ({@link dev.tierlock.archive.ArchiveException}) or a transaction's ({@link
 * dev.tierlock.TierlockException}).
 */
@NullMarked
package dev.tierlock.install;

import org.jspecify.annotations.NullMarked;
