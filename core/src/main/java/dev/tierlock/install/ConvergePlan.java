package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.archive.ArchiveException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The plan of a convergence pass: what the restore rule decides for each entry of the lockfile and
 * for each extension the lockfile dropped, from what is on disk now, and the restores it prepares
 * from the tier (by workers, while the pass applies them). What it learns goes into the pass's
 * {@link PassLedger}. Single use, on the pass's thread.
 */
final class ConvergePlan {

  /** What the plan decided for one name. */
  enum Step { VERIFIED, RESTORE, SKIP, REMOVE, FORGET, DRIFT }

  private final ConvergeWork steps;
  private final PassLedger ledger;
  private final Converger.Edits edits;
  private final int parallel;

  /**
   * Creates the plan of one pass.
   *
   * @param parallel how many restores are prepared at once
   */
  ConvergePlan(ConvergeWork steps, PassLedger ledger, Converger.Edits edits, int parallel) {
    this.steps = steps;
    this.ledger = ledger;
    this.edits = edits;
    this.parallel = parallel;
  }

  /** Decides, from what is on disk now, what to do with every entry and every extension the lockfile dropped. */
  Map<ExtensionName, Step> plan(Lockfile view) {
    Map<ExtensionName, Step> plan = new LinkedHashMap<>();
    for (ExtensionName name : view.names()) {
      LockfileEntry entry = view.entry(name).orElseThrow();
      plan.put(name, decide(name, entry, steps.inspect(name, Optional.of(entry), view)));
    }
    Set<String> foreign = new HashSet<>();
    view.foreign().forEach(f -> foreign.add(f.name()));
    for (ExtensionName name : new ArrayList<>(ledger.records.keySet())) {
      if (foreign.contains(name.value())) {
        // the lockfile still names it, with a value that is not a valid entry: not a removal
        ledger.warnings.add("the lockfile's entry for " + name + " is not a valid entry: its files are left as they"
            + " are");
        ledger.skipped.add(name);
        plan.put(name, Step.SKIP);
      } else if (!view.contains(name)) {
        plan.put(name, planRemoval(name, view));
      }
    }
    return plan;
  }

  /**
   * Starts preparing each restore {@code plan} decided, up to the pass's bound at once ({@link
   * RestoreWorkers}), for the pass to take in plan order as each is ready; a restore that fails is
   * blocked or retried as it is taken.
   */
  Restores start(Map<ExtensionName, Step> plan, Lockfile view) {
    return new Restores(with(plan, Step.RESTORE), view);
  }

  /**
   * Plans again from the disk as recovery left it: a plan made before recovery rolled an install or
   * removal back or forward judged files that are no longer there (an extension it saw new may be
   * old again, one it saw gone may be back). The caller closes the restores of the plan before.
   */
  Map<ExtensionName, Step> replan(Lockfile view) {
    ledger.resetToBaseline();
    return plan(view);
  }

  /**
   * The restores of one plan: prepared by workers while the pass takes them, in plan order, each as
   * soon as it and those before it are ready. A failure goes into the ledger as it is taken. Closing
   * stops the workers, closes every restore prepared (taken or not) and counts what they spent.
   */
  final class Restores implements AutoCloseable {

    private final RestoreWorkers workers;
    private final RestoreWorkers.Ordered ordered;
    private final Lockfile view;
    private final Set<ExtensionName> dropped = new HashSet<>();
    private final List<PreparedInstall> taken = new ArrayList<>();
    /** The restore {@link #any} waited for, which {@link #next} returns first. */
    private @Nullable PreparedInstall head;
    private boolean closed;

    private Restores(List<ExtensionName> names, Lockfile view) {
      this.view = view;
      this.workers = new RestoreWorkers(parallel, name -> steps.prepare(name, view));
      this.ordered = workers.start(names);
    }

    /** Drops the restore of {@code name}: it is never handed over, and what it prepared is closed with the rest. */
    void drop(ExtensionName name) {
      dropped.add(name);
    }

    /**
     * Returns the next restore prepared, in plan order, waiting for it; the ones that failed on the
     * way are recorded in the ledger (blocked or retried), the dropped ones skipped.
     *
     * @return the restore, or null when none is left
     */
    @Nullable PreparedInstall next() {
      return take(ordered::next);
    }

    /**
     * Returns the next restore as {@link #next} does, waiting at most {@code patience} by {@code
     * clock} for each: past that, it and every later one are left pending, due again at once.
     */
    @Nullable PreparedInstall nextWithin(Clock clock, Duration patience) {
      return take(() -> ordered.next(clock, patience));
    }

    private @Nullable PreparedInstall take(Supplier<RestoreWorkers.Outcome> taking) {
      PreparedInstall first = head;
      head = null;
      if (first != null && !dropped.contains(first.name())) {
        return first;
      }
      while (ordered.hasNext()) {
        RestoreWorkers.Outcome outcome = taking.get();
        PreparedInstall prepared = outcome.prepared();
        if (prepared == null) {
          RuntimeException failure = java.util.Objects.requireNonNull(outcome.failure(), "a failure");
          if (dropped.contains(outcome.name())) {
            continue;
          }
          if (outcome.cancelled()) {
            ledger.cancelled(outcome.name(), PassLedger.identity(view.entry(outcome.name()).orElseThrow()), failure);
          } else {
            failed(outcome.name(), view, failure);
          }
          continue;
        }
        taken.add(prepared);
        if (!dropped.contains(outcome.name())) {
          return prepared;
        }
      }
      return null;
    }

    /**
     * Waits for the first restore to be prepared (the ones that fail on the way recorded), and
     * returns whether there is one: {@link #next} then returns it. The pass takes its lock only
     * then, so a pass of one restore downloads it with no lock held.
     */
    boolean any() {
      if (head == null) {
        head = next();
      }
      return head != null;
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      ordered.close();
      taken.forEach(PreparedInstall::close);
      ledger.spent(workers.requests(), workers.bytes());
    }
  }

  /**
   * The restore rule. Files that differ from the pin at a version it accepts, and that the pin has
   * not moved away from, are a local edit: kept as they are (replaced only under {@link
   * Converger.Edits#REPLACE}). Files a restore replaces that are not the ones this checkout last
   * verified or restored are marked to be kept aside before the swap ({@link PassLedger#keep}).
   */
  private Step decide(ExtensionName name, LockfileEntry entry, ConvergeWork.LocalFiles files) {
    String identity = PassLedger.identity(entry);
    ConvergenceState.Record record = ledger.record(name);
    if (record != null && !record.entry().equals(identity)) {
      // the entry changed: its retry and unrestorable verdict are void, what was verified stays
      record = record.forEntry(identity);
      ledger.records.put(name, record);
    }
    boolean exact = ConvergePass.isExact(entry.version());
    boolean restore = files.version().isEmpty() || !files.missing().isEmpty()
        || exact && !files.version().get().equals(entry.version());
    if (!restore && matches(entry, files, record)) {
      ledger.verify(name, entry, files);
      ledger.verified.add(name);
      return Step.VERIFIED;
    }
    if (!restore && !movedOrUnmet(entry, files, record, exact) && edits == Converger.Edits.KEEP) {
      ledger.warnings.add(name + " " + files.version().orElse("?") + " differs from what the lockfile pins (edited"
          + " locally): kept as it is; install it again, or converge --force, to replace it");
      ledger.records.put(name, record == null ? new ConvergenceState.Record(identity, entry.checksum().orElse(""), null,
          null, null) : new ConvergenceState.Record(identity, entry.checksum().orElse(""), record.filesChecksum(),
          null, null, record.skippedChecksum(), record.keptAt()));
      return Step.DRIFT;
    }
    Step step = restoreOrSkip(name, entry, identity);
    if (step == Step.RESTORE && edits == Converger.Edits.KEEP && files.present() && !unedited(files, record)) {
      ledger.keep.put(name, record == null || record.filesChecksum() == null
          ? "this checkout never verified them, so they may hold local edits" : "edited locally");
    }
    return step;
  }

  /**
   * Returns whether {@code files} are, file for file, what this checkout last verified or restored:
   * the files digest and the skipped-files digest both as recorded (a record from before the
   * skipped-files digest was kept counts only when no such file is there).
   */
  static boolean unedited(ConvergeWork.LocalFiles files, ConvergenceState.@Nullable Record record) {
    if (record == null || record.filesChecksum() == null
        || !files.digest().equals(Optional.of(record.filesChecksum()))) {
      return false;
    }
    return files.skipped().equals(record.skippedChecksum() == null ? LocalEdits.NONE : record.skippedChecksum());
  }

  /**
   * Returns whether files at a version the pin accepts are nonetheless not the pin's: the pin moved
   * since this checkout last verified it (the files are the old pin's), or a constraint pin never
   * verified here is not met by what is installed. Otherwise they were edited locally.
   */
  private static boolean movedOrUnmet(LockfileEntry entry, ConvergeWork.LocalFiles files,
      ConvergenceState.@Nullable Record record, boolean exact) {
    String lastVerified = record == null ? null : record.verified();
    if (lastVerified != null) {
      return !lastVerified.equals(entry.checksum().orElse(""));
    }
    return !exact && !ConvergePass.satisfies(entry.version(), files.version().get());
  }

  /** Decides a restore the rule asks for: skipped while unrestorable or its retry is not due, blocked when unpinned. */
  private Step restoreOrSkip(ExtensionName name, LockfileEntry entry, String identity) {
    ConvergenceState.Record current = ledger.record(name);
    if (current != null && (current.unrestorable() != null
        || current.retry() != null && !ledger.isDue(current.retry()))) {
      ledger.skipped.add(name);
      return Step.SKIP;
    }
    if (entry.checksum().isEmpty()) {
      ledger.block(name, identity, ConvergeReport.Unrestorable.Reason.UNPINNED,
          "its lockfile entry has no checksum, so it pins no archive");
      return Step.SKIP;
    }
    return Step.RESTORE;
  }

  /**
   * Returns whether the files are the entry's: their digest is its {@code filesChecksum}, or it has
   * none, or this checkout verified (or restored) this very checksum and the digest is the one it
   * recorded then. The last covers a checkout whose layout counts other paths as skills than the
   * installing one did: its digest of the same bytes differs from the entry's for good.
   */
  static boolean matches(LockfileEntry entry, ConvergeWork.LocalFiles files, ConvergenceState.@Nullable Record record) {
    Optional<String> filesChecksum = entry.filesChecksum();
    if (filesChecksum.isEmpty() || filesChecksum.equals(files.digest())) {
      return true;
    }
    return record != null && record.filesChecksum() != null && entry.checksum().orElse("").equals(record.verified())
        && files.digest().equals(Optional.of(record.filesChecksum()));
  }

  private Step planRemoval(ExtensionName name, Lockfile view) {
    ConvergenceState.Record record = ledger.record(name);
    ConvergeWork.LocalFiles files = steps.inspect(name, Optional.empty(), view);
    if (files.digest().isEmpty() && files.version().isEmpty()) {
      return Step.FORGET;  // nothing on disk
    }
    if (edits == Converger.Edits.KEEP && !unedited(files, record)) {
      ledger.warnings.add(name + " is no longer in the lockfile but its files were edited locally: kept as they are;"
          + " remove them, or converge --force, to drop it");
      return Step.FORGET;
    }
    return Step.REMOVE;
  }

  /** Records the failed restore of {@code name}: unrestorable until its entry changes, or retried. */
  private void failed(ExtensionName name, Lockfile view, RuntimeException e) {
    String identity = PassLedger.identity(view.entry(name).orElseThrow());
    Optional<ConvergeReport.Unrestorable.Reason> reason = unrestorable(e);
    if (e instanceof ArchiveException a && a.code().equals(ArchiveException.CANCELLED)) {
      ledger.cancelled(name, identity, e);
      Thread.currentThread().interrupt();
    } else if (reason.isPresent()) {
      ledger.block(name, identity, reason.get(), e.getMessage());
    } else {
      ledger.retry(name, identity, e);
    }
  }

  /**
   * Returns why a restore that failed with {@code failure} cannot succeed until its entry changes,
   * or empty when it failed for a passing reason (it is retried).
   */
  static Optional<ConvergeReport.Unrestorable.Reason> unrestorable(RuntimeException failure) {
    if (failure instanceof ArchiveException archive) {
      return switch (archive.code()) {
        case ArchiveException.TAMPERED -> Optional.of(ConvergeReport.Unrestorable.Reason.TAMPERED);
        case ArchiveException.MISSING -> Optional.of(ConvergeReport.Unrestorable.Reason.ARCHIVE_MISSING);
        case ArchiveException.LIMIT -> Optional.of(ConvergeReport.Unrestorable.Reason.LIMIT);
        case ArchiveException.REJECTED, ArchiveException.CORRUPT ->
            Optional.of(ConvergeReport.Unrestorable.Reason.REJECTED);
        default -> Optional.empty();
      };
    }
    if (failure instanceof InstallException install) {
      return switch (install.code()) {
        // converge mode has no registry: the tier lacks the archive
        case InstallException.REGISTRY_UNAVAILABLE -> Optional.of(ConvergeReport.Unrestorable.Reason.ARCHIVE_MISSING);
        case InstallException.MANIFEST_MISMATCH -> Optional.of(ConvergeReport.Unrestorable.Reason.MANIFEST_MISMATCH);
        case InstallException.UNSAFE -> Optional.of(ConvergeReport.Unrestorable.Reason.UNSAFE);
        default -> Optional.empty();
      };
    }
    return Optional.empty();
  }

  /** Returns the names {@code plan} decides {@code step} for, in plan order. */
  static List<ExtensionName> with(Map<ExtensionName, Step> plan, Step step) {
    return plan.entrySet().stream().filter(e -> e.getValue() == step).map(Map.Entry::getKey).toList();
  }
}
