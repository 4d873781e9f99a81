package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.LockfileRead;
import dev.tierlock.PendingChange;
import dev.tierlock.Tierlock;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One convergence pass of one checkout: the gate, the plan (the restore rule per entry, removals),
 * the restores' preparation started on workers and the first one waited for with no lock held,
 * then, holding the pulled-extensions try-lock, recovery, a re-check, the swaps (each restore as
 * soon as it and those before it are prepared, the workers going on meanwhile), and the state
 * saved. Single use, on one thread.
 */
final class ConvergePass {

  /** How a pass was asked for. */
  enum Mode {
    /** One conditional read; the rest only when the lockfile changed or a retry is due. */
    GATED,
    /** No request at all when the state is at the version the caller knows and nothing is due. */
    KNOWN,
    /** Every entry looked at, unrestorable ones tried again. */
    FULL
  }

  private final Converger converger;
  private final Tierlock tierlock;
  private final ConvergeWork steps;
  private final PassLedger ledger;
  private final ConvergePlan planner;
  private ConvergenceState state;
  /** Whether the whole state was read (the gate may have read its header alone). */
  private boolean loaded;

  ConvergePass(Converger converger, Tierlock tierlock, ConvergeWork steps) {
    this.converger = converger;
    this.tierlock = tierlock;
    this.steps = steps;
    this.ledger = new PassLedger(converger.clock().instant(), converger::retryWait);
    this.planner = new ConvergePlan(steps, ledger, converger.edits(), converger.parallelRestores());
    this.state = ConvergenceState.fresh(converger.base(), 0);
  }

  /**
   * Runs the pass; never throws for anything but an {@link Error}. The gate reads the state's header
   * alone when it is settled (no retry, nothing unrestorable) and of this base: a pass with nothing
   * to do then costs the same whatever the number of records; otherwise, and before any work, the
   * whole state.
   */
  Result run(Mode mode, @Nullable String knownVersion) {
    Optional<ConvergenceState.Header> settled = mode == Mode.FULL ? Optional.empty() : converger.loadHeader()
        .filter(h -> h.settled() && h.base().equals(converger.base()) && !steps.needsRecovery(h.left()));
    boolean quiet = true;
    ConvergenceState.Header gate;
    if (settled.isPresent()) {
      gate = settled.get();
    } else {
      boolean full = load(mode == Mode.FULL);
      quiet = !full && !steps.needsRecovery(state.left()) && !ledger.due();
      gate = state.header();
    }
    if (mode == Mode.KNOWN && quiet && knownVersion != null && knownVersion.equals(gate.lockfileVersion())) {
      return unchanged(gate);
    }
    LockfileRead read;
    try {
      read = tierlock.read();
    } catch (LockfileFormatException e) {
      ledger.warnings.add("the shared lockfile does not parse, so nothing was converged: " + e.getMessage());
      return end(ConvergeReport.Outcome.LOCKFILE_UNREADABLE, null, null, false);
    } catch (RuntimeException e) {
      ledger.warnings.add("the shared lockfile could not be read, so nothing was converged: " + e.getMessage());
      return end(ConvergeReport.Outcome.UNAVAILABLE, null, null, false);
    }
    if (read.version().isEmpty()) {
      ledger.warnings.add("the datastore holds no shared lockfile, so nothing was converged");
      return end(ConvergeReport.Outcome.NO_LOCKFILE, null, null, false);
    }
    if (pendingUnreadable()) {
      ledger.warnings.add("this checkout's pending-change record cannot be read, so it may hold an install not yet"
          + " published: nothing is swapped until it is re-applied or discarded");
      return end(ConvergeReport.Outcome.BLOCKED, null, null, false);
    }
    Lockfile view = withPending(read.lockfile());
    String version = read.version().get();
    String sha = sha256(view.bytes());
    if (quiet && version.equals(gate.lockfileVersion()) && sha.equals(gate.lockfileSha256())) {
      return unchanged(gate);
    }
    requireLoaded();
    return pass(read.lockfile(), view, version, sha, read.version());
  }

  /** Reads the whole state when the gate read its header alone: the pass goes on (gated, so not a full one asked for). */
  private void requireLoaded() {
    if (!loaded) {
      load(false);
    }
  }

  /**
   * Loads the state into the ledger; returns whether the pass is a full one: asked for, or no valid
   * state, or a state of another base.
   */
  private boolean load(boolean asked) {
    loaded = true;
    boolean full = asked;
    Optional<ConvergenceState> loaded = converger.loadState(ledger.warnings);
    if (loaded.isEmpty()) {
      full = true;  // no state, or an invalid one: one full pass
    } else if (!loaded.get().base().equals(converger.base())) {
      full = true;
      ledger.warnings.add("the checkout now converges from " + converger.base() + ", not " + loaded.get().base()
          + ": a full pass");
      state = ConvergenceState.fresh(converger.base(), loaded.get().restoreGeneration());
    } else {
      state = loaded.get();
    }
    ledger.load(state, full);
    return full;
  }

  private Result pass(Lockfile shared, Lockfile view, String version, String sha, Optional<String> readVersion) {
    ledger.markBaseline();
    Map<ExtensionName, ConvergePlan.Step> plan = planner.plan(view);
    ConvergeReport.Outcome outcome = ConvergeReport.Outcome.CONVERGED;
    try (ConvergePlan.Restores restores = planner.start(plan, view)) {
      boolean swaps = restores.any() || plan.containsValue(ConvergePlan.Step.REMOVE)
          || steps.needsRecovery(state.left());
      if (swaps) {
        outcome = underLock(shared, view, readVersion, plan, restores);
      } else {
        ConvergePlan.with(plan, ConvergePlan.Step.FORGET).forEach(ledger.records::remove);
      }
    }
    // the restores are closed, so what their workers spent is counted whatever the outcome; an
    // interrupt that stopped the wait for one has done its work: the state is saved, then it is set again
    boolean interrupted = Thread.interrupted();
    try {
      return switch (outcome) {
        case BUSY -> busy();
        case BLOCKED -> end(ConvergeReport.Outcome.BLOCKED, null, null, false);
        default -> end(ConvergeReport.Outcome.CONVERGED, version, sha, true);
      };
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Takes the try-lock and swaps; returns {@link ConvergeReport.Outcome#BUSY} when the lock is held
   * or the lockfile changed, {@link ConvergeReport.Outcome#BLOCKED} when a journal blocks the swaps,
   * else {@link ConvergeReport.Outcome#CONVERGED}.
   */
  private ConvergeReport.Outcome underLock(Lockfile shared, Lockfile view, Optional<String> readVersion,
      Map<ExtensionName, ConvergePlan.Step> plan, ConvergePlan.Restores restores) {
    Optional<ConvergeReport.Outcome> swapped = tierlock.tryWithPulledExtensionsLock(() -> {
      if (!unchangedSince(shared, view, readVersion)) {
        ledger.warnings.add("the lockfile changed during the pass (an install on this checkout): nothing was swapped");
        return ConvergeReport.Outcome.BUSY;
      }
      return new ConvergeSwap(steps, planner, ledger, converger.clock()).run(view, plan, restores) ? ConvergeReport.Outcome.CONVERGED
          : ConvergeReport.Outcome.BLOCKED;
    });
    if (swapped.isEmpty()) {
      ledger.warnings.add("another install, removal or convergence of this checkout is running: nothing was swapped");
      return ConvergeReport.Outcome.BUSY;
    }
    return swapped.get();
  }

  /**
   * Returns whether the lockfile this checkout sees is still the one the pass planned from: the
   * cached version is the one read, and the pending change (if any) still gives {@code view}.
   */
  private boolean unchangedSince(Lockfile shared, Lockfile view, Optional<String> readVersion) {
    return tierlock.cached().flatMap(LockfileRead::version).equals(readVersion) && !pendingUnreadable()
        && view.equals(withPending(shared));
  }

  private boolean pendingUnreadable() {
    try {
      return tierlock.transaction().pending().map(p -> p.state() == PendingChange.State.UNREADABLE).orElse(false);
    } catch (RuntimeException e) {
      return true;
    }
  }

  private Lockfile withPending(Lockfile shared) {
    Optional<PendingChange> pending;
    try {
      pending = tierlock.transaction().pending();
    } catch (RuntimeException e) {
      ledger.warnings.add("this checkout's pending change cannot be read: converged to the shared lockfile alone ("
          + e.getMessage() + ")");
      return shared;
    }
    return pending.map(p -> p.delta().applyTo(shared)).orElse(shared);
  }

  /** The pass had nothing to do: the state, of which {@code gate} is the header, is at the lockfile read. */
  private Result unchanged(ConvergenceState.Header gate) {
    ledger.generation = gate.restoreGeneration();
    ConvergeReport report = report(ConvergeReport.Outcome.UNCHANGED, Optional.ofNullable(gate.lockfileVersion()),
        Optional.ofNullable(gate.lockfileSha256()), false);
    return new Result(report, null);
  }

  private Result busy() {
    return end(ConvergeReport.Outcome.BUSY, null, null, false);
  }

  /** Ends the pass: the state is saved when the pass converged, or when it learnt something. */
  private Result end(ConvergeReport.Outcome outcome, @Nullable String version, @Nullable String sha,
      boolean converged) {
    requireLoaded();
    String warned = ledger.warnings.isEmpty() ? null
        : sha256(String.join("\n", ledger.warnings).getBytes(StandardCharsets.UTF_8));
    boolean fresh = !Objects.equals(warned, state.warned());
    ConvergenceState next = new ConvergenceState(converger.base(), converged ? version : state.lockfileVersion(),
        converged ? sha : state.lockfileSha256(), ledger.generation, warned, ledger.records, ledger.left);
    if (!next.equals(state) && !converger.saveState(next, ledger.warnings)) {
      fresh = true;
    }
    state = next;
    Optional<String> v = Optional.ofNullable(converged ? version : null);
    Optional<String> s = Optional.ofNullable(converged ? sha : null);
    return new Result(report(outcome, v, s, fresh), next);
  }

  private ConvergeReport report(ConvergeReport.Outcome outcome, Optional<String> version, Optional<String> sha,
      boolean fresh) {
    List<ConvergeReport.Pending> pending = new ArrayList<>();
    List<ConvergeReport.Unrestorable> blocked = new ArrayList<>();
    ledger.records.forEach((name, r) -> {
      if (r.retry() != null) {
        pending.add(new ConvergeReport.Pending(name, r.retry().attempts(), r.retry().next(), r.retry().reason()));
      }
      if (r.unrestorable() != null) {
        blocked.add(new ConvergeReport.Unrestorable(name, r.unrestorable().reason(), r.unrestorable().detail()));
      }
    });
    return new ConvergeReport(outcome, ledger.restored, ledger.removed, ledger.verified, ledger.skipped, pending,
        blocked, List.copyOf(ledger.warnings), fresh, ledger.requests, ledger.bytes, version, sha, ledger.generation);
  }

  static String identity(LockfileEntry entry) {
    return sha256(entry.canonicalJson().getBytes(StandardCharsets.UTF_8));
  }

  /** Returns whether {@code installed} is a version the constraint pin {@code range} accepts. */
  static boolean satisfies(String range, String installed) {
    try {
      return VersionSelector.highest(range, List.of(installed)).isPresent();
    } catch (RuntimeException e) {
      return false;
    }
  }

  static boolean isExact(String version) {
    try {
      return VersionConstraint.of(version).isExact();
    } catch (IllegalArgumentException e) {
      return true;  // not a constraint this engine reads: compared as a version
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot digest: this JVM has no SHA-256", e);
    }
  }

  /** A pass's report, and the state it left (null when it wrote none). */
  record Result(ConvergeReport report, @Nullable ConvergenceState state) {}
}
