package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionContext;
import dev.tierlock.TransactionResult;
import dev.tierlock.archive.ArchiveTransactions;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The install engine of one checkout and layout: what {@link Installer} and {@link Converger}
 * share. It holds the settings, the preparer, the checkout's archives and the owners of installs in
 * flight, and runs the apply (recovery, the swaps, the entries), an install's transaction and
 * recovery. In converge mode it only restores what the lockfile pins, from the tier: no registry,
 * every request {@link InstallRequest.RecordPolicy#NEVER}, and a guard that refuses any change to the lockfile.
 * Thread-safe.
 */
final class InstallEngine {

  /** The boundary after an install's change applied it and saved the catalog, before its publish. */
  static final String APPLIED = "installer/applied";

  /** The boundary after an install's or a removal's transaction returned, before its commit. */
  static final String PUBLISHED = "installer/published";

  /** The directory of the state directory holding the owner locks of installs in flight. */
  static final String OWNERS = "install-owners";

  private final Tierlock tierlock;
  private final ExtensionLayout layout;
  private final EngineSettings settings;
  private final ArchiveTransactions archives;
  private final Preparer preparer;
  private final Path lockfilePath;
  private final OwnerIds owners;
  private final boolean converge;
  /** The sorted names of the lockfile nested roots were last looked up in (convergence looks up each entry). */
  private volatile @Nullable NestedIndex nestedIndex;

  /** The sorted names of one lockfile, held no longer than the lockfile itself. */
  private record NestedIndex(WeakReference<Lockfile> lockfile, NavigableSet<String> names) {}

  private InstallEngine(Tierlock tierlock, ExtensionLayout layout, @Nullable ExtensionRegistry registry,
      EngineSettings settings, boolean converge) {
    this.tierlock = Objects.requireNonNull(tierlock, "tierlock");
    this.layout = Objects.requireNonNull(layout, "layout");
    this.settings = settings;
    this.converge = converge;
    this.archives = ArchiveTransactions.of(tierlock, settings.limits(), settings.clock());
    this.preparer = new Preparer(layout, registry, settings.safety(), archives, settings.limits(), settings.ids());
    this.lockfilePath = tierlock.namespace().localPath(tierlock.cacheDirectory(), TierPath.LOCKFILE);
    this.owners = OwnerIds.locked(new OwnerLocks(tierlock.stateDirectory().resolve(OWNERS), settings.clock()));
  }

  /** Returns the engine of an installer: from the tier, else {@code registry} (null for none). */
  static InstallEngine installing(Tierlock tierlock, ExtensionLayout layout, @Nullable ExtensionRegistry registry,
      EngineSettings settings) {
    return new InstallEngine(tierlock, layout, registry, settings, false);
  }

  /** Returns the engine of convergence, or of an installer in converge mode: from the tier alone. */
  static InstallEngine converging(Tierlock tierlock, ExtensionLayout layout, EngineSettings settings) {
    return new InstallEngine(tierlock, layout, null, settings, true);
  }

  /** Prepares {@code request} against {@code lockfile}; in converge mode as a restore of the pin, never recorded. */
  PreparedInstall prepare(InstallRequest request, Lockfile lockfile) {
    InstallRequest effective = converge
        ? new InstallRequest(request.name(), VersionConstraint.LOCKED, InstallRequest.RecordPolicy.NEVER) : request;
    return preparer.prepare(effective, lockfile);
  }

  /** Prepares the restore of {@code name} alone (no dependency) against {@code lockfile}: converge mode only. */
  PreparedInstall prepareRestore(ExtensionName name, Lockfile lockfile) {
    if (!converge) {
      throw new IllegalStateException("Cannot prepare the restore of " + name
          + ": the installer is not in converge mode");
    }
    return preparer.prepare(new InstallRequest(name, VersionConstraint.LOCKED, InstallRequest.RecordPolicy.NEVER),
        lockfile, false);
  }

  /**
   * Applies {@code prepared} and the dependencies prepared with it inside {@code tx}, as {@link
   * Installer#apply} documents: recovery first, each extension judged and idle, every swap undone if
   * a later one fails; in converge mode, refused when anything would be recorded or the lockfile
   * changed.
   */
  PendingInstall apply(TransactionContext tx, PreparedInstall prepared) {
    requireSection(tx, "apply " + prepared.name());
    if (prepared.consumed()) {
      throw new IllegalStateException("Cannot apply " + prepared + ": it was applied or closed already");
    }
    return applyRecovered(tx, prepared, recover(tx), this::requireIdle);
  }

  /**
   * Applies {@code prepared} as {@link #apply} does, after a recovery that already ran under the
   * same hold of the pulled-extensions lock ({@code recovered}) and with {@code idle} refusing a
   * name another install still has in flight: convergence recovers and looks for the installs in
   * flight once per pass, since nothing else swaps while it holds the lock.
   */
  PendingInstall applyRecovered(TransactionContext tx, PreparedInstall prepared, RecoveryReport recovered,
      Consumer<ExtensionName> idle) {
    requireSection(tx, "apply " + prepared.name());
    if (prepared.consumed()) {
      throw new IllegalStateException("Cannot apply " + prepared + ": it was applied or closed already");
    }
    List<PreparedInstall> order = flatten(prepared);
    for (PreparedInstall p : order) {
      Recovery.requireJudged(recovered, p.name());
      idle.accept(p.name());
    }
    if (converge && order.stream().anyMatch(p -> p.request().policy() != InstallRequest.RecordPolicy.NEVER)) {
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
      undo(applied, tx, e);
      throw e;
    } finally {
      order.forEach(PreparedInstall::close);
    }
    return new InstallPending(tx, applied);
  }

  private static void undo(List<AppliedInstall> applied, TransactionContext tx, Throwable failure) {
    for (int i = applied.size() - 1; i >= 0; i--) {
      try {
        applied.get(i).rollback(tx);
      } catch (RuntimeException undo) {
        failure.addSuppressed(undo);
      }
    }
  }

  /**
   * Installs {@code prepared} in one transaction, as {@link Installer#install} documents, {@code
   * check} running under the locks first (it throws to refuse the install: nothing is changed); the
   * caller closes {@code prepared}.
   */
  InstallResult install(PreparedInstall prepared, Catalog catalog, Consumer<TransactionContext> check) {
    AtomicReference<@Nullable PendingInstall> done = new AtomicReference<>();
    TransactionResult result;
    try {
      result = tierlock.transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
        check.accept(tx);
        done.set(applySaved(tx, prepared, catalog));
        settings.boundaries().at(APPLIED);
        return null;
      }));
    } catch (RuntimeException | Error e) {
      commitAfter(done.get(), e);
      throw e;
    }
    settings.boundaries().at(PUBLISHED);
    PendingInstall pending = Objects.requireNonNull(done.get(), "the change ran");
    pending.commit();
    return new InstallResult(pending.installed(), sources(prepared), pending.written().isPresent(), result);
  }

  /** Applies {@code prepared} and saves {@code catalog}; a save that throws rolls the apply back. */
  private PendingInstall applySaved(TransactionContext tx, PreparedInstall prepared, Catalog catalog) {
    PendingInstall pending = apply(tx, prepared);
    try {
      catalog.save(new Catalog.Update(pending.installed(), List.of()));
    } catch (RuntimeException | Error e) {
      try {
        pending.rollback();
      } catch (RuntimeException undo) {
        e.addSuppressed(undo);
      }
      throw e;
    }
    return pending;
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
   * Removes {@code name} in one transaction, as {@link Installer#remove} documents.
   */
  TransactionResult remove(ExtensionName name, Catalog catalog) {
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
        settings.boundaries().at(APPLIED);
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
    settings.boundaries().at(PUBLISHED);
    Swap swap = swapped.get();
    if (swap != null) {
      swap.commit();
    }
    return result;
  }

  /**
   * Runs recovery inside {@code tx}, against the lockfile it sees: the shared lockfile as fetched
   * under the locks, with any pending change of this checkout re-applied, so an install whose
   * publish is pending after a crash is rolled forward, not back.
   */
  RecoveryReport recover(TransactionContext tx) {
    Lockfile lockfile = tx.lockfile();
    return new Recovery(layout, settings.clock(), Set.of(lockfilePath), owners, settings.boundaries())
        .recoverAgainst(name -> lockfile.entry(name).map(Recovery.Pin::of), lockfile.names());
  }

  /**
   * Refuses {@code name} while another install or removal of it is in flight on this checkout (its
   * journal's owner alive): swapping it now would put this install's staging between that one's
   * swap and its commit.
   *
   * @throws InstallBusyException if one is
   */
  void requireIdle(ExtensionName name) {
    Path journal = inFlight(name.value()).get(name);
    if (journal != null) {
      throw InstallBusyException.inFlight(name.value(), journal);
    }
  }

  /**
   * Returns the extensions another install or removal of this checkout has in flight (its journal's
   * owner alive), each with its journal: one listing of the staging.
   *
   * @param what the name the failure to list is reported for
   * @throws InstallException ({@code install_failed}) if the staging cannot be listed
   */
  Map<ExtensionName, Path> inFlight(String what) {
    Map<ExtensionName, Path> busy = new LinkedHashMap<>();
    Path staging = Roots.stagingRoot(layout);
    if (!Files.isDirectory(staging)) {
      return busy;
    }
    try (Stream<Path> entries = Files.list(staging)) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        Path journal = entry.resolve(StagingPaths.JOURNAL);
        if (!Files.isRegularFile(journal, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        InstallJournal read;
        try {
          read = InstallJournalCodec.read(journal);
        } catch (IOException | InstallException e) {
          continue;  // recovery judged it (and refused it, when it could not)
        }
        if (owners.isActive(read.ownerId())) {
          busy.putIfAbsent(read.extension(), journal);
        }
      }
    } catch (IOException e) {
      throw InstallException.failed(what, "cannot list the staging " + staging + " (" + e.getMessage() + ")", e);
    }
    return busy;
  }

  private static void requireSection(TransactionContext tx, String what) {
    if (!tx.holdsPulledExtensionsLock()) {
      throw new IllegalStateException("Cannot " + what + ": call it inside tx.withPulledExtensionsLock(...), which"
          + " holds the checkout's pulled-extensions lock until the install is committed or rolled back");
    }
  }

  /** Returns {@code prepared} and every dependency prepared with it, each once, the requested one first. */
  private static List<PreparedInstall> flatten(PreparedInstall prepared) {
    List<PreparedInstall> all = new ArrayList<>();
    flatten(prepared, all);
    return all;
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

  private static Map<ExtensionName, InstallResult.Source> sources(PreparedInstall prepared) {
    Map<ExtensionName, InstallResult.Source> sources = new LinkedHashMap<>();
    for (PreparedInstall p : flatten(prepared)) {
      sources.put(p.name(), p.source());
    }
    return sources;
  }

  /**
   * Returns the other extensions' roots nested in the root of {@code name} ({@link NestedRoots#of}),
   * looking the lockfile's names up in an index built once per lockfile.
   */
  List<String> nestedRoots(ExtensionName name, Lockfile lockfile) {
    NestedIndex known = nestedIndex;
    if (known == null || known.lockfile().get() != lockfile) {
      known = new NestedIndex(new WeakReference<>(lockfile), NestedRoots.index(lockfile.names()));
      nestedIndex = known;
    }
    return NestedRoots.of(layout, name, known.names());
  }

  Tierlock tierlock() {
    return tierlock;
  }

  ExtensionLayout layout() {
    return layout;
  }

  ArchiveTransactions archives() {
    return archives;
  }

  Preparer preparer() {
    return preparer;
  }

  Clock clock() {
    return settings.clock();
  }

  String newId() {
    return settings.ids().get();
  }

  SwapBoundary boundaries() {
    return settings.boundaries();
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

  boolean converging() {
    return converge;
  }

  @Override
  public String toString() {
    return "InstallEngine[" + tierlock.checkoutDirectory() + (converge ? ", converge mode" : "") + "]";
  }
}
