package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionContext;
import dev.tierlock.TransactionResult;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveTransactions;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
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
  private final ExtensionLayout layout;
  private final ArchiveTransactions archives;
  private final Preparer preparer;
  private final Clock clock;
  private final Supplier<String> ids;
  private final SwapBoundary boundaries;
  private final Path lockfilePath;
  private final OwnerIds owners;
  private final boolean converge;

  private Installer(Builder builder) {
    this.converge = builder.converge;
    this.tierlock = builder.tierlock;
    this.layout = builder.layout;
    this.clock = builder.clock;
    this.ids = builder.ids;
    this.boundaries = builder.boundaries;
    this.archives = ArchiveTransactions.of(tierlock, builder.limits, builder.clock);
    this.preparer = new Preparer(layout, builder.registry, builder.safety, archives, builder.limits, ids);
    this.lockfilePath = tierlock.namespace().localPath(tierlock.cacheDirectory(), TierPath.LOCKFILE);
    this.owners = OwnerIds.locked(new OwnerLocks(tierlock.stateDirectory().resolve(OWNERS), clock));
  }

  /** The boundary after an install's change applied it and saved the catalog, before its publish. */
  static final String APPLIED = "installer/applied";

  /** The boundary after an install's or a removal's transaction returned, before its commit. */
  static final String PUBLISHED = "installer/published";

  /** The directory of the state directory holding the owner locks of installs in flight. */
  static final String OWNERS = "install-owners";

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
   * @throws RegistryNotFoundException if the registry has no such release
   * @throws RegistryUnavailableException if the registry is needed and unreachable (or absent)
   * @throws ManifestMismatchException if the archive is another extension or version
   * @throws UnsafeExtensionException if the safety analysis refused it
   * @throws dev.tierlock.archive.ArchiveException if the archive is tampered, over a cap or hostile
   * @throws dev.tierlock.TierlockException as {@link Tierlock#snapshot()} does
   */
  public PreparedInstall prepare(InstallRequest request) {
    InstallRequest effective = converge
        ? new InstallRequest(request.name(), VersionConstraint.LOCKED, RecordPolicy.NEVER) : request;
    return preparer.prepare(effective, tierlock.snapshot());
  }

  /**
   * Prepares the restore of {@code name} alone (no dependency) against {@code lockfile}, as
   * converge mode does: the pin, from the tier, never recorded.
   */
  PreparedInstall prepareRestore(ExtensionName name, Lockfile lockfile) {
    if (!converge) {
      throw new IllegalStateException("Cannot prepare the restore of " + name + ": the installer is not in converge mode");
    }
    return preparer.prepare(new InstallRequest(name, VersionConstraint.LOCKED, RecordPolicy.NEVER), lockfile, false);
  }

  /** Returns whether this installer runs in converge mode. */
  boolean converging() {
    return converge;
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
   * @throws InstallJournalException if an interrupted install of one of these extensions cannot be
   *     judged (it is left for an operator)
   * @throws InstallStaleException if a restore was prepared from a pin the lockfile no longer holds
   * @throws InstallBusyException if another install of one of them is in flight
   * @throws InstallFailedException if a swap step failed (undone)
   * @throws dev.tierlock.TierlockException if storing an archive failed (swaps undone)
   */
  public PendingInstall apply(TransactionContext tx, PreparedInstall prepared) {
    requireSection(tx, "apply " + prepared.name());
    if (prepared.consumed()) {
      throw new IllegalStateException("Cannot apply " + prepared + ": it was applied or closed already");
    }
    RecoveryReport recovered = recover(tx);
    List<PreparedInstall> order = new ArrayList<>();
    flatten(prepared, order);
    for (PreparedInstall p : order) {
      Recovery.requireJudged(recovered, p.name());
      requireIdle(p.name());
    }
    if (converge && order.stream().anyMatch(p -> p.request().policy() != RecordPolicy.NEVER)) {
      throw new IllegalStateException("Cannot apply " + prepared + " in converge mode: it was prepared to be recorded");
    }
    Lockfile before = tx.lockfile();
    List<AppliedInstall> applied = new ArrayList<>();
    try {
      for (PreparedInstall p : order) {
        applied.add(AppliedInstall.apply(this, tx, p));
      }
      if (converge && !tx.lockfile().equals(before)) {
        // the guard of converge mode: whatever the code above does, it never writes the lockfile
        throw new IllegalStateException("Cannot apply " + prepared + " in converge mode: it changed the lockfile");
      }
    } catch (RuntimeException | Error e) {
      for (int i = applied.size() - 1; i >= 0; i--) {
        try {
          applied.get(i).rollback(tx);
        } catch (RuntimeException undo) {
          e.addSuppressed(undo);
        }
      }
      throw e;
    } finally {
      for (PreparedInstall p : order) {
        p.close();
      }
    }
    return new InstallPending(this, tx, applied);
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
    } catch (InstallStaleException stale) {
      // a peer changed the pin between the prepare and the locks: prepare again, once
      return installOnce(request, catalog);
    }
  }

  private InstallResult installOnce(InstallRequest request, Catalog catalog) {
    try (PreparedInstall prepared = prepare(request)) {
      return installPrepared(prepared, catalog, tx -> { });
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
   *       RecordPolicy#IF_MISSING_CHECKSUM}, else {@link RecordPolicy#ALWAYS}). A peer's change to
   *       the entry meanwhile makes it run once more against the lockfile as it is then.
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
    if (converge) {
      throw new IllegalStateException("Cannot install the pinned extensions in converge mode: it never writes the"
          + " tier");
    }
    ArchiveBackfill backfill = new ArchiveBackfill(layout, preparer, archives.store(), ids);
    return new PinnedRun(this, preparer, backfill, tierlock::snapshot, catalog).run(tierlock.snapshot());
  }

  /**
   * Installs {@code prepared} as {@link #install} does, {@code check} running under the locks first
   * (it throws to refuse the install: nothing is changed); the caller closes {@code prepared}.
   */
  InstallResult installPrepared(PreparedInstall prepared, Catalog catalog,
      Consumer<TransactionContext> check) {
    AtomicReference<@Nullable PendingInstall> done = new AtomicReference<>();
    TransactionResult result;
    try {
      result = tierlock.transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
        check.accept(tx);
        PendingInstall pending = apply(tx, prepared);
        try {
          catalog.save(new CatalogUpdate(pending.installed(), List.of()));
        } catch (RuntimeException | Error e) {
          try {
            pending.rollback();
          } catch (RuntimeException undo) {
            e.addSuppressed(undo);
          }
          throw e;
        }
        done.set(pending);
        boundaries.at(APPLIED);
        return null;
      }));
    } catch (RuntimeException | Error e) {
      commitAfter(done.get(), e);
      throw e;
    }
    boundaries.at(PUBLISHED);
    PendingInstall pending = Objects.requireNonNull(done.get(), "the change ran");
    pending.commit();
    return new InstallResult(pending.installed(), sources(prepared), pending.written().isPresent(), result);
  }

  /**
   * Commits {@code pending} after its transaction threw {@code failure} once its change had run:
   * the change is published in part (a conflict) or kept pending, so the new files stay.
   */
  private static void commitAfter(@Nullable PendingInstall pending, Throwable failure) {
    if (pending == null) {
      return;
    }
    try {
      pending.commit();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Removes {@code name} in one transaction, holding the locks: recovery, then {@code catalog}'s
   * save, then the lockfile entry (its archive deleted from the tier after the publish), then the
   * files (moved into staging under a journal; deleted once the transaction has published, or kept
   * the removal pending). A save that throws changes nothing.
   *
   * @param name the extension
   * @param catalog the embedding tool's save
   * @return how the transaction ended ({@link dev.tierlock.TransactionStatus#NO_CHANGE} when neither
   *     an entry nor files existed)
   * @throws InstallJournalException if an interrupted install of it cannot be judged
   * @throws InstallFailedException if the files could not be moved away (put back)
   */
  public TransactionResult remove(ExtensionName name, Catalog catalog) {
    Objects.requireNonNull(catalog, "catalog");
    if (converge) {
      throw new IllegalStateException("Cannot remove " + name + " in converge mode: it never writes the lockfile");
    }
    AtomicReference<@Nullable Swap> swapped = new AtomicReference<>();
    TransactionResult result;
    try {
      result = tierlock.transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
        Recovery.requireJudged(recover(tx), name);
        requireIdle(name);
        swapped.set(Removal.run(this, tx, name, catalog));
        boundaries.at(APPLIED);
        return null;
      }));
    } catch (RuntimeException | Error e) {
      Swap swap = swapped.get();
      if (swap != null) {
        try {
          swap.commit();
        } catch (RuntimeException cleanup) {
          e.addSuppressed(cleanup);
        }
      }
      throw e;
    }
    boundaries.at(PUBLISHED);
    Swap swap = swapped.get();
    if (swap != null) {
      swap.commit();
    }
    return result;
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
      report.set(recover(tx));
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
    return InstalledScan.scan(layout, tierlock.snapshot());
  }

  /**
   * Runs recovery inside {@code tx}, against the lockfile it sees: the shared lockfile as fetched
   * under the locks, with any pending change of this checkout re-applied, so an install whose
   * publish is pending after a crash is rolled forward, not back.
   */
  RecoveryReport recover(TransactionContext tx) {
    Lockfile lockfile = tx.lockfile();
    return new Recovery(layout, clock, Set.of(lockfilePath), owners, boundaries)
        .recoverAgainst(name -> lockfile.entry(name).map(Recovery.Pin::of), lockfile.names());
  }

  /**
   * Refuses {@code name} while another install or removal of it is in flight on this checkout (its
   * journal's owner alive): swapping it now would put this install's staging between that one's
   * swap and its commit.
   *
   * @throws InstallBusyException if one is
   */
  private void requireIdle(ExtensionName name) {
    Path staging = Roots.stagingRoot(layout);
    if (!java.nio.file.Files.isDirectory(staging)) {
      return;
    }
    try (java.util.stream.Stream<Path> entries = java.nio.file.Files.list(staging)) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        Path journal = entry.resolve(StagingPaths.JOURNAL);
        if (!java.nio.file.Files.isRegularFile(journal, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        InstallJournal read;
        try {
          read = InstallJournalCodec.read(journal);
        } catch (java.io.IOException | InstallJournalException e) {
          continue;  // recovery judged it (and refused it, when it could not)
        }
        if (read.extension().equals(name) && owners.isActive(read.ownerId())) {
          throw new InstallBusyException(name.value(), journal);
        }
      }
    } catch (java.io.IOException e) {
      throw new InstallFailedException(name.value(), "cannot list the staging " + staging + " (" + e.getMessage() + ")",
          e);
    }
  }

  private static void requireSection(TransactionContext tx, String what) {
    if (!tx.holdsPulledExtensionsLock()) {
      throw new IllegalStateException("Cannot " + what + ": call it inside tx.withPulledExtensionsLock(...), which"
          + " holds the checkout's pulled-extensions lock until the install is committed or rolled back");
    }
  }

  private static void flatten(PreparedInstall prepared, List<PreparedInstall> into) {
    if (into.stream().anyMatch(p -> p.name().equals(prepared.name()))) {
      return;
    }
    into.add(prepared);
    for (PreparedInstall dependency : prepared.dependencies()) {
      flatten(dependency, into);
    }
  }

  private static java.util.Map<ExtensionName, InstallSource> sources(PreparedInstall prepared) {
    List<PreparedInstall> all = new ArrayList<>();
    flatten(prepared, all);
    java.util.Map<ExtensionName, InstallSource> sources = new java.util.LinkedHashMap<>();
    for (PreparedInstall p : all) {
      sources.put(p.name(), p.source());
    }
    return sources;
  }

  ExtensionLayout layout() {
    return layout;
  }

  ArchiveTransactions archives() {
    return archives;
  }

  Clock clock() {
    return clock;
  }

  String newId() {
    return ids.get();
  }

  SwapBoundary boundaries() {
    return boundaries;
  }

  Path lockfilePath() {
    return lockfilePath;
  }

  OwnerIds owners() {
    return owners;
  }

  Path checkout() {
    return tierlock.checkoutDirectory();
  }

  /** Builds an {@link Installer}. */
  public static final class Builder {
    private final Tierlock tierlock;
    private final ExtensionLayout layout;
    private @Nullable ExtensionRegistry registry;
    private @Nullable SafetyAnalyzer safety;
    private ArchiveLimits limits = ArchiveLimits.DEFAULTS;
    private Clock clock = Clock.systemUTC();
    private Supplier<String> ids = () -> UUID.randomUUID().toString();
    private SwapBoundary boundaries = SwapBoundary.NONE;
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
      this.safety = Objects.requireNonNull(value, "safetyAnalyzer");
      return this;
    }

    /**
     * Sets the archive caps; by default {@link ArchiveLimits#DEFAULTS}.
     *
     * @param value the archive caps
     * @return this builder
     */
    public Builder archiveLimits(ArchiveLimits value) {
      this.limits = Objects.requireNonNull(value, "archiveLimits");
      return this;
    }

    /**
     * Sets the clock of pulledAt and of the staging sweep (an hour); by default the system UTC clock.
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /** Sets where owner and staging ids come from (tests); by default random UUIDs. */
    Builder ids(Supplier<String> value) {
      this.ids = Objects.requireNonNull(value, "ids");
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
      this.boundaries = hook::accept;
      return this;
    }

    /**
     * Makes an installer in converge mode: it only restores what the shared lockfile pins, from the
     * tier: every request runs with {@link RecordPolicy#NEVER} and {@link VersionConstraint#LOCKED},
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
