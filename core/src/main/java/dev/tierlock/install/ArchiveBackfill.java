package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.archive.ArchiveException;
import dev.tierlock.archive.ArchiveStore;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Stores the archive a lockfile entry pins when the tier lacks it, outside any transaction: storing
 * an archive writes no entry, and the store is create-only and verifies the bytes against the key
 * (the checksum the lockfile already pins). The bytes come from an install of the same run that
 * verified them, else from the registry at the exact version (the entry's, or for a constraint pin
 * such as {@code ^1.2} the installed manifest's), accepted only when their SHA-256 is the entry's
 * checksum and the checksum the registry states. Stateless apart from its configuration, so
 * thread-safe.
 *
 * <p>An archive stored for an entry a peer removes meanwhile stays in the tier unreferenced, as a
 * crashed install's would; the next install of that checksum finds it.
 */
final class ArchiveBackfill {

  private final ExtensionLayout layout;
  private final Preparer preparer;
  private final ArchiveStore store;
  private final Supplier<String> ids;

  ArchiveBackfill(ExtensionLayout layout, Preparer preparer, ArchiveStore store, Supplier<String> ids) {
    this.layout = Objects.requireNonNull(layout, "layout");
    this.preparer = Objects.requireNonNull(preparer, "preparer");
    this.store = Objects.requireNonNull(store, "store");
    this.ids = Objects.requireNonNull(ids, "ids");
  }

  /**
   * Backfills the archive {@code entry} pins for {@code name}.
   *
   * @param verified the archive an install of this run verified for the entry, if any
   * @return {@link PinnedInstallResult.Outcome.Backfill#UNPINNED}, {@link
   *     PinnedInstallResult.Outcome.Backfill#PRESENT}, {@link PinnedInstallResult.Outcome.Backfill#SKIPPED}
   *     or {@link PinnedInstallResult.Outcome.Backfill#STORED}
   * @throws ArchiveException ({@code archive_tampered}) if the registry's bytes are not the pinned ones, or it stated
   *     no checksum for them; nothing was stored
   * @throws RuntimeException as the registry, the download ({@link RegistryDownload#fetch}) and the store
   *     do; nothing was stored
   */
  PinnedInstallResult.Outcome.Backfill run(ExtensionName name, LockfileEntry entry,
      Optional<VerifiedArchive> verified) {
    Optional<String> checksum = entry.checksum();
    if (checksum.isEmpty()) {
      return PinnedInstallResult.Outcome.Backfill.UNPINNED;
    }
    ExtensionArchiveKey key = ExtensionArchiveKey.of(name, checksum.get());
    if (store.contains(key)) {
      return PinnedInstallResult.Outcome.Backfill.PRESENT;
    }
    if (verified.isPresent() && verified.get().key().equals(key)) {
      store.store(key, verified.get().path());
      return PinnedInstallResult.Outcome.Backfill.STORED;
    }
    Optional<ExtensionRegistry> registry = preparer.registry();
    if (registry.isEmpty()) {
      return PinnedInstallResult.Outcome.Backfill.SKIPPED;
    }
    VersionConstraint exact = VersionConstraint.exactly(version(name, entry));
    Path directory = newDirectory(name);
    try {
      RegistryDownload download = preparer.download(registry.get(), name, exact, directory);
      String where = "the registry's " + name + "@" + download.release().version();
      if (!download.sha256().equals(key.sha256())) {
        throw ArchiveException.tampered(key, download.sha256(), "backfill", where);
      }
      if (download.release().checksum().isEmpty()) {
        throw ArchiveException.tampered(key, download.sha256(), "backfill", where
            + " (the registry stated no checksum for them, and an archive is backfilled only from stated, matching"
            + " bytes)");
      }
      store.store(key, download.file());
      return PinnedInstallResult.Outcome.Backfill.STORED;
    } finally {
      StagingFiles.deleteQuietly(directory);
    }
  }

  /**
   * Returns the one version the registry is asked for: the entry's when it pins an exact one, else
   * (a constraint pin) the installed manifest's.
   *
   * @throws InstallException ({@code install_failed}) if neither names one
   */
  private String version(ExtensionName name, LockfileEntry entry) {
    String pinned = entry.version();
    try {
      if (VersionConstraint.of(pinned).isExact()) {
        return pinned;
      }
    } catch (IllegalArgumentException e) {
      throw InstallException.failed(name.value(), "cannot backfill its archive: its entry's version \"" + pinned
          + "\" is not one the registry can be asked for", e);
    }
    return InstalledScan.liveVersion(layout, Roots.extensionRoot(layout, name))
        .orElseThrow(() -> InstallException.failed(name.value(), "cannot backfill its archive: its entry pins the"
            + " range " + pinned + " and no installed manifest names the version its archive has", null));
  }

  private Path newDirectory(ExtensionName name) {
    Path root = Roots.stagingRoot(layout);
    String id = ids.get();
    if (id == null || !id.matches("[0-9A-Za-z_-]{1,64}")) {
      throw new IllegalStateException("Cannot stage the backfill of " + name + ": the staging id \"" + id
          + "\" is not a plain name ([0-9A-Za-z_-]{1,64})");
    }
    Path directory = root.resolve(Preparer.PREFIX + id);
    try {
      Files.createDirectories(root);
      Files.createDirectory(directory);
    } catch (IOException e) {
      throw InstallException.failed(name.value(), "cannot create the staging directory " + directory
          + " of its backfill: " + e, e);
    }
    return directory;
  }
}
