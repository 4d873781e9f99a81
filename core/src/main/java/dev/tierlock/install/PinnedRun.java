package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.TransactionContext;
import dev.tierlock.archive.VerifiedArchive;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * One {@link Installer#installPinned}: for each entry of the lockfile read, by name, installs the
 * files when they are missing or at another version (on its own, since each dependency the lockfile
 * pins is an entry of its own), then backfills its archive ({@link ArchiveBackfill}). Each entry's
 * failure stays in its outcome and the next entry runs. Not thread-safe: one run's.
 */
final class PinnedRun {

  private final InstallEngine engine;
  private final Preparer preparer;
  private final ArchiveBackfill backfill;
  private final Supplier<Lockfile> snapshots;
  private final Catalog catalog;

  /** What the install step of one entry did. */
  private record Step(PinnedInstallResult.Outcome.Install install, Optional<InstallResult> installed,
      Optional<RuntimeException> failure, Optional<VerifiedArchive> verified, boolean storedWithEntry) {

    static Step of(PinnedInstallResult.Outcome.Install install) {
      return new Step(install, Optional.empty(), Optional.empty(), Optional.empty(), false);
    }

    static Step failed(RuntimeException failure) {
      return new Step(PinnedInstallResult.Outcome.Install.FAILED, Optional.empty(), Optional.of(failure),
          Optional.empty(), false);
    }
  }

  /** Creates the run of {@code engine}, which reads the shared lockfile again for an entry a peer changed meanwhile. */
  PinnedRun(InstallEngine engine, Catalog catalog) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.preparer = engine.preparer();
    this.backfill = new ArchiveBackfill(engine.layout(), preparer, engine.archives().store(), engine::newId);
    this.snapshots = engine.tierlock()::snapshot;
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  /** Runs every entry of {@code lockfile}, by name. */
  PinnedInstallResult run(Lockfile lockfile) {
    List<PinnedInstallResult.Outcome> outcomes = new ArrayList<>();
    for (ExtensionName name : new TreeSet<>(lockfile.names())) {
      outcomes.add(entry(name, lockfile, true));
    }
    return new PinnedInstallResult(outcomes);
  }

  private PinnedInstallResult.Outcome entry(ExtensionName name, Lockfile lockfile, boolean retry) {
    LockfileEntry entry = lockfile.entry(name).orElseThrow();
    Step step;
    try {
      step = install(name, entry, lockfile);
    } catch (InstallBusyException stale) {
      // a peer changed the entry between the read and the locks: run it again, once, as it is now
      Optional<Lockfile> fresh = retry && stale.code().equals(InstallException.STALE) ? reread(stale)
          : Optional.empty();
      if (fresh.isPresent() && fresh.get().entry(name).isPresent()) {
        return entry(name, fresh.get(), false);
      }
      step = Step.failed(stale);
    } catch (RuntimeException e) {
      step = Step.failed(e);
    }
    PinnedInstallResult.Outcome.Backfill archive;
    Optional<RuntimeException> failure = Optional.empty();
    if (step.storedWithEntry()) {
      archive = PinnedInstallResult.Outcome.Backfill.STORED;
    } else {
      try {
        archive = backfill.run(name, entry, step.verified());
      } catch (RuntimeException e) {
        archive = PinnedInstallResult.Outcome.Backfill.FAILED;
        failure = Optional.of(e);
      }
    }
    return new PinnedInstallResult.Outcome(name, entry, step.install(), step.installed(), step.failure(), archive,
        failure);
  }

  /**
   * Installs {@code name} as {@code entry} pins it unless it is on disk as pinned or edited: the
   * pin ({@link VersionConstraint#LOCKED}: the tier first, else the registry), recorded only when the
   * entry has no checksum (so it gains one); the apply refuses an entry changed since it was read.
   */
  private Step install(ExtensionName name, LockfileEntry entry, Lockfile lockfile) {
    InstalledExtension.State state = InstalledScan.one(engine.layout(), lockfile, name).state();
    if (state == InstalledExtension.State.MATCHES) {
      return Step.of(PinnedInstallResult.Outcome.Install.ALREADY_INSTALLED);
    }
    if (state == InstalledExtension.State.EDITED) {
      return Step.of(PinnedInstallResult.Outcome.Install.LEFT_EDITED);
    }
    InstallRequest.RecordPolicy policy = entry.checksum().isPresent() ? InstallRequest.RecordPolicy.IF_MISSING_CHECKSUM
        : InstallRequest.RecordPolicy.ALWAYS;
    InstallRequest request = new InstallRequest(name, VersionConstraint.LOCKED, policy);
    try (PreparedInstall prepared = preparer.prepare(request, lockfile, false)) {
      InstallResult result = engine.install(prepared, catalog, tx -> requireUnchanged(tx, name, entry));
      boolean storedWithEntry = result.recorded() && prepared.storable().isPresent();
      Optional<VerifiedArchive> verified = prepared.source() == InstallResult.Source.REGISTRY && !storedWithEntry
          ? prepared.storable() : Optional.empty();
      return new Step(PinnedInstallResult.Outcome.Install.INSTALLED, Optional.of(result), Optional.empty(), verified,
          storedWithEntry);
    }
  }

  private static void requireUnchanged(TransactionContext tx, ExtensionName name, LockfileEntry read) {
    Optional<LockfileEntry> now = tx.entry(name);
    if (!now.equals(Optional.of(read))) {
      throw InstallBusyException.stale(name.value(), now.isEmpty() ? "the lockfile no longer has the entry it was"
          + " prepared from" : "the lockfile's entry changed since it was read");
    }
  }

  private Optional<Lockfile> reread(InstallException stale) {
    try {
      return Optional.of(snapshots.get());
    } catch (RuntimeException e) {
      stale.addSuppressed(e);
      return Optional.empty();
    }
  }
}
