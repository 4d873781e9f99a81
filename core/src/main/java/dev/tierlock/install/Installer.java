package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionContext;
import dev.tierlock.TransactionResult;
import dev.tierlock.archive.ArchiveLimits;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Installs, upgrades and removes the extensions of one checkout ({@link Tierlock}) so that a crash,
 * a failed catalog save or a peer installing at the same time never leaves a half-written
 * extension, a version rolled back to nothing, or a lockfile entry the disk disagrees with.
 *
 * <pre>{@code
 * Installer installer = Installer.builder(tierlock, layout).registry(registry).build();
 * InstallResult result = installer.install(InstallRequest.parse("@acme/tool@^1.2"), catalog);
 * }</pre>
 *
 * <p><b>Prepare</b> ({@link #prepare}) takes no lock: the archive comes from the tier when the
 * lockfile pins its checksum (no registry call), else from the registry; its SHA-256 is checked
 * against every checksum stated (the registry's, the lockfile's); it is extracted into staging within
 * the archive limits; its manifest must name the extension (and, for an exact pin, the version); the
 * safety analysis runs; its dependencies are prepared the same way, each as its own request.
 *
 * <p><b>Apply</b> ({@link #apply}) runs inside a transaction holding the pulled-extensions lock:
 * it finishes interrupted installs (recovery), swaps the staged roots in under a journal (old roots
 * to staging, new ones in, the manifest last), stores the archive in the tier and writes the entry
 * (as the record policy says), for the dependencies too, and returns a {@link PendingInstall}. The
 * caller's catalog save sits between it and {@link PendingInstall#commit} or {@link
 * PendingInstall#rollback}; {@link #install} does all of it. On disk the order is files, lockfile,
 * catalog; a removal runs catalog, lockfile, files.
 *
 * <p><b>Everything pinned</b> ({@link #installPinned}) installs, entry by entry, what the shared
 * lockfile pins and the disk lacks, then stores in the tier each pinned archive it lacks (a
 * backfill, from the bytes just verified or the registry at the exact version): how a checkout is
 * brought up to the lockfile, and how a tier that lost archives gets them back.
 *
 * <p>Thread-safe. One installer per checkout and layout is enough; several are safe too (they share
 * the pulled-extensions lock).
 */
public final class Installer {

  private final Tierlock tierlock;
  private final InstallEngine engine;

  private Installer(Builder builder) {
    this.tierlock = builder.tierlock;
    this.engine = builder.converge
        ? InstallEngine.converging(builder.tierlock, builder.layout, builder.settings)
        : InstallEngine.installing(builder.tierlock, builder.layout, builder.registry, builder.settings);
  }

  /**
   * Starts building the installer of {@code tierlock}'s checkout with its extensions laid out as
   * {@code layout} says.
   *
   * @param tierlock the checkout
   * @param layout where its extensions live
   * @return a builder: no registry (the tier only), no safety analysis, {@link ArchiveLimits#DEFAULTS},
   *     the system UTC clock
   */
  public static Builder builder(Tierlock tierlock, ExtensionLayout layout) {
    return new Builder(tierlock, layout);
  }

  /**
   * Prepares {@code request} with no lock held, against the shared lockfile as it is now ({@link
   * Tierlock#snapshot()}).
   *
   * @param request what to install
   * @return the extension and the dependencies it needs, staged; close it if it is not applied
   * @throws InstallException ({@code registry_not_found}) if the registry has no such release
   * @throws InstallException ({@code registry_unavailable}) if the registry is needed and unreachable
   *     (or absent)
   * @throws InstallException ({@code install_manifest_mismatch}) if the archive is another extension or
   *     version
   * @throws InstallException ({@code install_unsafe}) if the safety analysis refused it
   * @throws dev.tierlock.archive.ArchiveException if the archive is tampered, over a cap or hostile
   * @throws dev.tierlock.TierlockException as {@link Tierlock#snapshot()} does
   */
  public PreparedInstall prepare(InstallRequest request) {
    return engine.prepare(request, tierlock.snapshot());
  }

  /**
   * Applies {@code prepared} inside the running change {@code tx}, which must hold the
   * pulled-extensions lock ({@link TransactionContext#withPulledExtensionsLock}): recovers
   * interrupted installs, swaps the extension and each prepared dependency in, stores each archive
   * that may be stored and writes each entry the record policy allows. Every swap is undone if a
   * later one fails.
   *
   * @param tx the running change
   * @param prepared what {@link #prepare} staged; consumed
   * @return the pending install: roll it back inside the change, or commit it once the run has
   *     returned (see {@link PendingInstall})
   * @throws IllegalStateException if {@code tx} does not hold the pulled-extensions lock, or
   *     {@code prepared} was applied or closed already, or (converge mode) the apply would record it
   * @throws InstallException ({@code install_journal_invalid}) if an interrupted install of one of
   *     these extensions cannot be judged (it is left for an operator)
   * @throws InstallBusyException ({@code install_stale}) if a restore was prepared from a pin the
   *     lockfile no longer holds; ({@code install_busy}) if another install of one of them is in flight
   * @throws InstallException ({@code install_failed}) if a swap step failed (undone)
   * @throws dev.tierlock.TierlockException if storing an archive failed (swaps undone)
   */
  public PendingInstall apply(TransactionContext tx, PreparedInstall prepared) {
    return engine.apply(tx, prepared);
  }

  /**
   * Installs {@code request} in one transaction: prepares it (no lock), then, holding the locks,
   * applies it and saves {@code catalog}; once the transaction has published the entries (or kept
   * them pending to publish: deferred, unpublished, a lost answer), commits. A save that throws rolls
   * everything back and its exception reaches the caller, with nothing published.
   *
   * @param request what to install
   * @param catalog the embedding tool's save
   * @return what was installed and how the transaction ended
   * @throws RuntimeException whatever {@link #prepare}, {@link #apply}, the save or the
   *     transaction threw; when the transaction threw after the change ran (its change kept
   *     pending, or a peer's value kept for a conflicting entry), the install is committed first
   */
  public InstallResult install(InstallRequest request, Catalog catalog) {
    Objects.requireNonNull(catalog, "catalog");
    try {
      return installOnce(request, catalog);
    } catch (InstallBusyException stale) {
      if (!stale.code().equals(InstallException.STALE)) {
        throw stale;
      }
      // a peer changed the pin between the prepare and the locks: prepare again, once
      return installOnce(request, catalog);
    }
  }

  private InstallResult installOnce(InstallRequest request, Catalog catalog) {
    try (PreparedInstall prepared = prepare(request)) {
      return engine.install(prepared, catalog, tx -> { });
    }
  }

  /**
   * Installs everything the shared lockfile pins, as it is now ({@link Tierlock#snapshot()}), entry
   * by entry in name order, each in a transaction of its own as {@link #install} runs it:
   *
   * <ul>
   *   <li><b>Files.</b> An extension on disk as pinned is left alone; one whose files differ from
   *       the entry's digest at the pinned version is left too (an edit is never overwritten) and
   *       reported; one missing or at another version is installed as pinned ({@link
   *       VersionConstraint#LOCKED}: from the tier when it holds the pinned archive, with no registry
   *       call, else from the registry at that version, its bytes matching the entry's checksum and
   *       the registry's), on its own (each dependency the lockfile pins is an entry of its own), and
   *       recorded only when the entry has no checksum, so it gains one ({@link
   *       InstallRequest.RecordPolicy#IF_MISSING_CHECKSUM}, else {@link
   *       InstallRequest.RecordPolicy#ALWAYS}). A peer's change to the entry meanwhile makes it run
   *       once more against the lockfile as it is then.
   *   <li><b>Archives.</b> Each pinned archive the tier lacks (a stat) is stored, outside any
   *       transaction and without a lockfile write: the bytes this run's install verified, else the
   *       registry's release at the exact version (the entry's, or for a constraint pin such as
   *       {@code ^1.2} the installed manifest's), only when their SHA-256 is the entry's checksum and
   *       the registry states that same checksum. Without a registry the backfill is skipped.
   * </ul>
   *
   * <p>Each entry's failure (an install or a backfill, of any kind) is reported in its outcome, not
   * thrown: the other entries run regardless, and a failed one changed nothing for its extension.
   *
   * @param catalog the embedding tool's save, once per extension installed
   * @return each entry's outcome: already installed, installed (from the tier or the registry), left
   *     edited or failed; and its archive present, stored, unpinned, skipped or failed
   * @throws IllegalStateException in converge mode (it writes the tier)
   * @throws dev.tierlock.TierlockException as {@link Tierlock#snapshot()} does
   */
  public PinnedInstallResult installPinned(Catalog catalog) {
    Objects.requireNonNull(catalog, "catalog");
    if (engine.converging()) {
      throw new IllegalStateException("Cannot install the pinned extensions in converge mode: it never writes the"
          + " tier");
    }
    return new PinnedRun(engine, catalog).run(tierlock.snapshot());
  }

  /**
   * Removes {@code name} in one transaction, holding the locks: recovery, then {@code catalog}'s
   * save, then the lockfile entry (its archive stays in the tier, for a collection), then the
   * files (moved into staging under a journal; deleted once the transaction has published, or kept
   * the removal pending). A save that throws changes nothing.
   *
   * @param name the extension
   * @param catalog the embedding tool's save
   * @return how the transaction ended ({@link dev.tierlock.TransactionStatus#NO_CHANGE} when neither
   *     an entry nor files existed)
   * @throws IllegalStateException in converge mode (it writes the lockfile)
   * @throws InstallException ({@code install_journal_invalid}) if an interrupted install of it cannot
   *     be judged
   * @throws InstallBusyException ({@code install_busy}) if another install of it is in flight
   * @throws InstallException ({@code install_failed}) if the files could not be moved away (put back)
   */
  public TransactionResult remove(ExtensionName name, Catalog catalog) {
    Objects.requireNonNull(catalog, "catalog");
    return engine.remove(name, catalog);
  }

  /**
   * Finishes the installs and removals interrupted on this checkout, in a transaction holding the
   * pulled-extensions lock (it changes no entry): rolls each forward or back as its journal and the
   * shared lockfile say, and sweeps staging left without a journal for over an hour.
   *
   * @return what it did
   */
  public RecoveryReport recover() {
    AtomicReference<RecoveryReport> report = new AtomicReference<>(RecoveryReport.NOTHING);
    tierlock.transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
      report.set(engine.recover(tx));
      return null;
    }));
    return report.get();
  }

  /**
   * Compares what is on disk with the shared lockfile as it is now ({@link Tierlock#snapshot()}; no
   * lock, nothing written): every extension the lockfile has, and every extension root on disk (a
   * directory under the pulled root holding a manifest), sorted by name.
   *
   * @return each extension's state
   * @throws dev.tierlock.TierlockException as {@link Tierlock#snapshot()} does
   */
  public List<InstalledExtension> installed() {
    return InstalledScan.scan(engine.layout(), tierlock.snapshot());
  }

  @Override
  public String toString() {
    return "Installer[" + tierlock.checkoutDirectory() + (engine.converging() ? ", converge mode" : "") + "]";
  }

  /** Builds an {@link Installer}. Not thread-safe. */
  public static final class Builder {
    private final Tierlock tierlock;
    private final ExtensionLayout layout;
    private @Nullable ExtensionRegistry registry;
    private EngineSettings settings = EngineSettings.DEFAULTS;
    private boolean converge;

    private Builder(Tierlock tierlock, ExtensionLayout layout) {
      this.tierlock = Objects.requireNonNull(tierlock, "tierlock");
      this.layout = Objects.requireNonNull(layout, "layout");
    }

    /**
     * Sets the registry releases come from when the tier lacks them; by default none (the tier only).
     *
     * @param value the registry
     * @return this builder
     */
    public Builder registry(ExtensionRegistry value) {
      this.registry = Objects.requireNonNull(value, "registry");
      return this;
    }

    /**
     * Sets the safety analysis run on every staged extension; by default none.
     *
     * @param value the safety analysis
     * @return this builder
     */
    public Builder safetyAnalyzer(SafetyAnalyzer value) {
      this.settings = settings.withSafety(value);
      return this;
    }

    /**
     * Sets the archive caps; by default {@link ArchiveLimits#DEFAULTS}.
     *
     * @param value the archive caps
     * @return this builder
     */
    public Builder archiveLimits(ArchiveLimits value) {
      this.settings = settings.withLimits(value);
      return this;
    }

    /**
     * Sets the clock of pulledAt and of the staging sweep (an hour); by default the system UTC clock.
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      this.settings = settings.withClock(value);
      return this;
    }

    /** Sets where owner and staging ids come from (tests); by default random UUIDs. */
    Builder ids(Supplier<String> value) {
      this.settings = settings.withIds(value);
      return this;
    }

    /**
     * Sets the hook told the name of each crash boundary an install, a removal or a recovery passes
     * (a test seam, as a ticker is for time; by default none). The boundaries are the points between
     * two durable steps where a crash must leave a state recovery can finish: {@code journal-written},
     * {@code staging-filled}, {@code moved-out/<i>}, {@code moved-in/<i>}, {@code manifest-in},
     * {@code journal-swapped}, {@code commit/journal-deleted}, {@code rollback/discarded/<i>}, {@code
     * rollback/restored/<i>}, {@code rollback/staging-deleted}, {@code installer/applied} (the change
     * applied and the catalog saved, before the publish) and {@code installer/published} (the
     * transaction returned, before the commit). The hook runs on the thread doing the step, with
     * the step's locks held. A hook that throws fails the step after it, as an I/O failure there
     * would; a hook that never returns holds the step there (a crash test kills the process).
     *
     * @param hook told each boundary's name as it is passed
     * @return this builder
     */
    public Builder boundaries(Consumer<String> hook) {
      Objects.requireNonNull(hook, "boundaries");
      this.settings = settings.withBoundaries(hook::accept);
      return this;
    }

    /**
     * Makes an installer in converge mode: it only restores what the shared lockfile pins, from the
     * tier: every request runs with {@link InstallRequest.RecordPolicy#NEVER} and {@link VersionConstraint#LOCKED},
     * no registry is ever called (one may not be set), no lockfile entry or archive is ever written
     * (a runtime guard refuses the change if one were), and removals are refused. Skill paths are
     * excluded from its digests as always. The mode convergence runs in.
     *
     * @return this builder
     */
    public Builder convergeMode() {
      this.converge = true;
      return this;
    }

    /**
     * Builds the installer.
     *
     * @return the installer
     * @throws IllegalStateException if converge mode is set together with a registry
     */
    public Installer build() {
      if (converge && registry != null) {
        throw new IllegalStateException("Cannot build an installer in converge mode with a registry: converge mode"
            + " restores from the tier alone");
      }
      return new Installer(this);
    }
  }
}
