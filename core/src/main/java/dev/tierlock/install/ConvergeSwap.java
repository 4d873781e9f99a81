package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The part of a convergence pass that runs holding the checkout's pulled-extensions lock, in a
 * change that refuses every edit of the lockfile: recovery first (and a new plan when it moved
 * files), then each restore swapped in as the workers prepare it, in plan order (every {@link #COMMIT_BATCH} the
 * change ends, those are committed and a new change goes on), each removal swapped out, the change
 * ended, and what was applied committed. What it does goes into the pass's {@link PassLedger}.
 * Single use, on the pass's thread.
 */
final class ConvergeSwap {

  private final ConvergeWork steps;
  /** The pass's clock, which bounds each wait for a restore under the lock. */
  private final Clock clock;
  private final ConvergePlan planner;
  private final PassLedger ledger;
  /** Where this pass kept the edits of each restore it swapped in over them. */
  private final Map<ExtensionName, String> kept = new TreeMap<>();
  /** What the pass's recovery, under the lock this swap holds, found and did. */
  private RecoveryReport recovered = RecoveryReport.NOTHING;
  /** The restores to swap in, taken in plan order: a new set when recovery made the pass plan again. */
  private ConvergePlan.@Nullable Restores restores;
  /** The change the swaps run in now: a new one after each {@link #COMMIT_BATCH} restores. */
  private @Nullable ConvergeContext change;

  /**
   * The most restores applied in one change: it then ends and they are committed (their journals
   * and old files deleted), so a pass of any size holds at most this many owner locks and old
   * roots. Committing a restore early is what recovery would do with it after a crash (the
   * lockfile pins what it swapped in, so it rolls forward).
   */
  static final int COMMIT_BATCH = 256;

  ConvergeSwap(ConvergeWork steps, ConvergePlan planner, PassLedger ledger, Clock clock) {
    this.clock = clock;
    this.steps = steps;
    this.planner = planner;
    this.ledger = ledger;
  }

  /**
   * Swaps toward {@code view}: {@code plan} and {@code restores} are the pass's; when recovery moved
   * files, the plan is made again and its restores started anew (closed here; the caller closes
   * {@code restores}).
   *
   * @return false when recovery left a journal that names no extension: it may be any extension's
   *     interrupted swap, so nothing more is swapped until an operator resolves it (the warning
   *     names it); else true
   */
  boolean run(Lockfile view, Map<ExtensionName, ConvergePlan.Step> plan, ConvergePlan.Restores restores) {
    List<PendingInstall> applied = new ArrayList<>();
    List<Runnable> removals = new ArrayList<>();
    this.restores = restores;
    change = new ConvergeContext(view);
    try {
      if (!recover(current(), view, plan)) {
        return false;
      }
      restore(view, applied);
      // an interrupt that stopped the wait for a restore has done its work: what was swapped in is
      // committed (its forces would fail with the flag set), then the flag is set again
      boolean interrupted = Thread.interrupted();
      try {
        remove(current(), plan, removals);
        current().finish();
        commit(applied, removals);
        recordRestored(view);
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    } finally {
      try {
        current().close();
      } finally {
        restores().close();
      }
    }
    return true;
  }

  private ConvergePlan.Restores restores() {
    return java.util.Objects.requireNonNull(restores, "the restores are given to run");
  }

  private ConvergeContext current() {
    return java.util.Objects.requireNonNull(change, "the change is opened by run");
  }

  /**
   * Recovers interrupted installs; plans again when recovery rolled any forward or back; blocks the
   * entries whose journals it left for an operator (dropping their prepared restores), and
   * remembers those journals' staging.
   *
   * @return false when a journal left for an operator names no extension (the warnings say which)
   */
  private boolean recover(ConvergeContext change, Lockfile view, Map<ExtensionName, ConvergePlan.Step> plan) {
    RecoveryReport recovered = steps.recover(change);
    this.recovered = recovered;
    if (!recovered.rolledForward().isEmpty() || !recovered.rolledBack().isEmpty()) {
      ledger.generation++;
      restores().close();
      Map<ExtensionName, ConvergePlan.Step> again = planner.replan(view);
      plan.clear();
      plan.putAll(again);
      restores = planner.start(plan, view);
    }
    ledger.left.clear();
    for (InstallException judged : recovered.left()) {
      Path dir = judged.journal().map(Path::getParent).orElse(null);
      if (dir != null && dir.getFileName() != null) {
        ledger.left.add(dir.getFileName().toString());
      }
    }
    boolean named = true;
    for (InstallException left : recovered.left()) {
      if (!ExtensionName.isValid(left.extension())) {
        ledger.warnings.add("an interrupted install's journal that cannot be read is left in staging, so nothing was"
            + " swapped: it may be any extension's; look at it and remove its staging directory (installs refuse to"
            + " run until then too): " + left.getMessage());
        named = false;
        continue;
      }
      ExtensionName name = ExtensionName.of(left.extension());
      view.entry(name).ifPresent(e -> ledger.block(name, PassLedger.identity(e),
          ConvergeReport.Unrestorable.Reason.JOURNAL, left.getMessage()));
      restores().drop(name);
    }
    return named;
  }

  /**
   * Swaps each restore in as it is prepared, in plan order, unless recovery or an install meanwhile
   * put it in place already.
   */
  private void restore(Lockfile view, List<PendingInstall> applied) {
    Map<ExtensionName, Path> inFlight;
    RuntimeException unlisted = null;
    try {
      inFlight = steps.inFlight();
    } catch (RuntimeException failure) {
      inFlight = Map.of();
      unlisted = failure;  // each restore fails with it, and is retried
    }
    for (PreparedInstall prepared = nextRestore(); prepared != null; prepared = nextRestore()) {
      ExtensionName name = prepared.name();
      LockfileEntry entry = view.entry(name).orElseThrow();
      ConvergeWork.LocalFiles now = steps.inspect(name, Optional.of(entry), view);
      if (now.version().equals(Optional.of(prepared.version())) && now.missing().isEmpty()
          && (entry.filesChecksum().isEmpty() || entry.filesChecksum().equals(now.digest()))) {
        // recovery, or an install finished meanwhile, put it in place
        ledger.restored(name, entry, now);
        ledger.verified.add(name);
        continue;
      }
      if (ledger.keep.containsKey(name) && !keep(name, entry, now, view)) {
        continue;
      }
      try {
        if (unlisted != null) {
          throw unlisted;
        }
        applied.add(steps.apply(current(), prepared, recovered, inFlight));
        ledger.restored.add(name);
        if (applied.size() == COMMIT_BATCH) {
          current().finish();
          commit(applied, List.of());
          applied.clear();
          change = new ConvergeContext(view);
        }
      } catch (RuntimeException failure) {
        if (failure instanceof InstallException i && i.code().equals(InstallException.JOURNAL_INVALID)) {
          ledger.block(name, PassLedger.identity(entry), ConvergeReport.Unrestorable.Reason.JOURNAL,
              failure.getMessage());
        } else {
          ledger.retry(name, PassLedger.identity(entry), failure);
        }
      }
    }
  }

  /** Returns the next restore prepared, waiting for it under the lock at most {@link Converger#LONGEST_WAIT_UNDER_LOCK}. */
  private @Nullable PreparedInstall nextRestore() {
    return restores().nextWithin(clock, Converger.LONGEST_WAIT_UNDER_LOCK);
  }

  /**
   * Keeps a copy of the files a restore of {@code name} is about to replace, as they are {@code now},
   * and says where, once per set of edits. A copy that cannot be made whole stops the restore (it is
   * retried): edits are never replaced unkept.
   *
   * @return whether the restore may go on
   */
  private boolean keep(ExtensionName name, LockfileEntry entry, ConvergeWork.LocalFiles now, Lockfile view) {
    String installed = now.version().map(v -> " " + v).orElse("");
    try {
      Path where = steps.keep(name, now, view);
      kept.put(name, where.toString());
      ledger.warnings.add(name + installed + " had files that differ from what this checkout last verified ("
          + ledger.keep.get(name) + "): kept at " + where + " before " + entry.version() + " was restored over them");
      return true;
    } catch (IOException | RuntimeException failure) {
      ledger.warnings.add(name + installed + " was not restored: its files, which may hold local edits, could not be"
          + " kept aside first (" + failure + "); nothing was replaced");
      ledger.retry(name, PassLedger.identity(entry), failure);
      return false;
    }
  }

  /** Forgets what the plan forgets, and swaps out the files of each removal; a removal that fails is a warning. */
  private void remove(ConvergeContext change, Map<ExtensionName, ConvergePlan.Step> plan, List<Runnable> removals) {
    for (Map.Entry<ExtensionName, ConvergePlan.Step> e : plan.entrySet()) {
      if (e.getValue() == ConvergePlan.Step.FORGET) {
        ledger.records.remove(e.getKey());
      } else if (e.getValue() == ConvergePlan.Step.REMOVE) {
        try {
          steps.removeFiles(change, e.getKey()).ifPresent(removals::add);
          ledger.removed.add(e.getKey());
          ledger.records.remove(e.getKey());
        } catch (RuntimeException failure) {
          ledger.warnings.add("the files of " + e.getKey() + ", no longer in the lockfile, could not be removed: "
              + failure.getMessage());
        }
      }
    }
  }

  /** Commits the restores and removals once the change has ended: deletes the old files; a failure is a warning. */
  private void commit(List<PendingInstall> applied, List<Runnable> removals) {
    for (PendingInstall pending : applied) {
      try {
        pending.commit();
      } catch (RuntimeException failure) {
        ledger.warnings.add("the old files of " + pending.name() + " are left in staging (recovery deletes them): "
            + failure.getMessage());
      }
    }
    for (Runnable removal : removals) {
      try {
        removal.run();
      } catch (RuntimeException failure) {
        ledger.warnings.add("removed files are left in staging (recovery deletes them): " + failure.getMessage());
      }
    }
  }

  /** Records each restored extension as verified with the digest of its files now, and moves the generation. */
  private void recordRestored(Lockfile view) {
    for (ExtensionName name : ledger.restored) {
      LockfileEntry entry = view.entry(name).orElseThrow();
      ledger.restored(name, entry, steps.inspect(name, Optional.of(entry), view));
      Optional.ofNullable(kept.get(name)).ifPresent(where -> ledger.kept(name, where));
    }
    if (!ledger.restored.isEmpty() || !ledger.removed.isEmpty()) {
      ledger.generation++;
    }
  }
}
