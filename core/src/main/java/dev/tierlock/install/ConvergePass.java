package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.LockfileRead;
import dev.tierlock.PendingChange;
import dev.tierlock.Tierlock;
import dev.tierlock.archive.ArchiveException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * One convergence pass of one checkout: the gate, the plan (the restore rule per entry, removals),
 * the restores prepared with no lock held, then, holding the pulled-extensions try-lock, recovery,
 * a re-check, the swaps, and the state saved. Single use, on one thread.
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

  /** What the plan decided for one name. */
  private enum Step { VERIFIED, RESTORE, SKIP, REMOVE, FORGET, DRIFT }

  private final Converger converger;
  private final Tierlock tierlock;
  private final ConvergeWork steps;
  private final Instant now;
  private final List<ExtensionName> restored = new ArrayList<>();
  private final List<ExtensionName> removed = new ArrayList<>();
  private final List<ExtensionName> verified = new ArrayList<>();
  private final List<ExtensionName> skipped = new ArrayList<>();
  private final TreeSet<String> warnings = new TreeSet<>();
  private final Map<ExtensionName, ConvergenceState.Record> records = new TreeMap<>();
  private ConvergenceState state;
  private long generation;
  private final java.util.SortedSet<String> left = new TreeSet<>();
  private Map<ExtensionName, ConvergenceState.Record> baselineRecords = Map.of();
  private java.util.Set<String> baselineWarnings = java.util.Set.of();

  ConvergePass(Converger converger, Tierlock tierlock, ConvergeWork steps) {
    this.converger = converger;
    this.tierlock = tierlock;
    this.steps = steps;
    this.now = converger.clock().instant();
    this.state = ConvergenceState.fresh(converger.base(), 0);
  }

  /** Runs the pass; never throws for anything but an {@link Error}. */
  Result run(Mode mode, @Nullable String knownVersion) {
    boolean full = mode == Mode.FULL;
    Optional<ConvergenceState> loaded = converger.loadState(warnings);
    if (loaded.isEmpty()) {
      full = true;  // no state, or an invalid one: one full pass
    } else if (!loaded.get().base().equals(converger.base())) {
      full = true;
      warnings.add("the checkout now converges from " + converger.base() + ", not " + loaded.get().base()
          + ": a full pass");
      state = ConvergenceState.fresh(converger.base(), loaded.get().restoreGeneration());
    } else {
      state = loaded.get();
    }
    generation = state.restoreGeneration();
    records.putAll(state.records());
    left.addAll(state.left());
    if (full) {
      records.replaceAll((name, r) -> new ConvergenceState.Record(r.entry(), r.verified(), r.filesChecksum(), null, null));
    }
    boolean staging = steps.needsRecovery(state.left());
    if (mode == Mode.KNOWN && !full && !staging && !due() && knownVersion != null
        && knownVersion.equals(state.lockfileVersion())) {
      return unchanged();
    }
    LockfileRead read;
    try {
      read = tierlock.read();
    } catch (LockfileFormatException e) {
      warnings.add("the shared lockfile does not parse, so nothing was converged: " + e.getMessage());
      return end(ConvergeOutcome.LOCKFILE_UNREADABLE, null, null, false);
    } catch (RuntimeException e) {
      warnings.add("the shared lockfile could not be read, so nothing was converged: " + e.getMessage());
      return end(ConvergeOutcome.UNAVAILABLE, null, null, false);
    }
    if (read.version().isEmpty()) {
      warnings.add("the datastore holds no shared lockfile, so nothing was converged");
      return end(ConvergeOutcome.NO_LOCKFILE, null, null, false);
    }
    if (pendingUnreadable()) {
      warnings.add("this checkout's pending-change record cannot be read, so it may hold an install not yet"
          + " published: nothing is swapped until it is re-applied or discarded");
      return end(ConvergeOutcome.BLOCKED, null, null, false);
    }
    Lockfile view = withPending(read.lockfile());
    String version = read.version().get();
    String sha = sha256(view.bytes());
    if (!full && !staging && !due() && version.equals(state.lockfileVersion()) && sha.equals(state.lockfileSha256())) {
      return unchanged();
    }
    return pass(read.lockfile(), view, version, sha, read.version());
  }

  private Result pass(Lockfile shared, Lockfile view, String version, String sha, Optional<String> readVersion) {
    baselineRecords = new TreeMap<>(records);
    baselineWarnings = new TreeSet<>(warnings);
    Map<ExtensionName, Step> plan = plan(view);
    Map<ExtensionName, PreparedInstall> prepared = new LinkedHashMap<>();
    try {
      prepareAll(plan, view, prepared);
      boolean swaps = !prepared.isEmpty() || plan.containsValue(Step.REMOVE) || steps.needsRecovery(state.left());
      if (swaps) {
        Optional<Result> busy = underLock(shared, view, readVersion, plan, prepared);
        if (busy.isPresent()) {
          return busy.get();
        }
      } else {
        plan.forEach((name, step) -> {
          if (step == Step.FORGET) {
            records.remove(name);
          }
        });
      }
    } finally {
      prepared.values().forEach(PreparedInstall::close);
    }
    return end(ConvergeOutcome.CONVERGED, version, sha, true);
  }

  /** Decides, from what is on disk now, what to do with every entry and every extension the lockfile dropped. */
  private Map<ExtensionName, Step> plan(Lockfile view) {
    Map<ExtensionName, Step> plan = new LinkedHashMap<>();
    for (ExtensionName name : view.names()) {
      LockfileEntry entry = view.entry(name).orElseThrow();
      plan.put(name, decide(name, entry, steps.inspect(name, Optional.of(entry), view)));
    }
    java.util.Set<String> foreign = new java.util.HashSet<>();
    view.foreign().forEach(f -> foreign.add(f.name()));
    for (ExtensionName name : new ArrayList<>(records.keySet())) {
      if (foreign.contains(name.value())) {
        // the lockfile still names it, with a value that is not a valid entry: not a removal
        warnings.add("the lockfile's entry for " + name + " is not a valid entry: its files are left as they are");
        skipped.add(name);
        plan.put(name, Step.SKIP);
      } else if (!view.contains(name)) {
        plan.put(name, planRemoval(name, view));
      }
    }
    return plan;
  }

  private void prepareAll(Map<ExtensionName, Step> plan, Lockfile view, Map<ExtensionName, PreparedInstall> prepared) {
    for (Map.Entry<ExtensionName, Step> e : plan.entrySet()) {
      if (e.getValue() == Step.RESTORE) {
        prepare(e.getKey(), view).ifPresent(p -> prepared.put(e.getKey(), p));
      }
    }
  }

  /**
   * Plans again from the disk as recovery left it: a plan made before recovery rolled an install or
   * removal back or forward judged files that are no longer there (an extension it saw new may be
   * old again, one it saw gone may be back).
   */
  private Map<ExtensionName, Step> replan(Lockfile view, Map<ExtensionName, PreparedInstall> prepared) {
    prepared.values().forEach(PreparedInstall::close);
    prepared.clear();
    records.clear();
    records.putAll(baselineRecords);
    warnings.clear();
    warnings.addAll(baselineWarnings);
    verified.clear();
    skipped.clear();
    Map<ExtensionName, Step> plan = plan(view);
    prepareAll(plan, view, prepared);
    return plan;
  }

  /** The restore rule. */
  private Step decide(ExtensionName name, LockfileEntry entry, ConvergeWork.LocalFiles files) {
    String identity = identity(entry);
    ConvergenceState.Record record = records.get(name);
    boolean sameEntry = record != null && record.entry().equals(identity);
    if (record != null && !sameEntry) {
      // the entry changed: its retry and unrestorable verdict are void, what was verified stays
      record = new ConvergenceState.Record(identity, record.verified(), record.filesChecksum(), null, null);
      records.put(name, record);
    }
    boolean exact = isExact(entry.version());
    boolean restore = files.version().isEmpty() || !files.missing().isEmpty()
        || exact && !files.version().get().equals(entry.version());
    String checksum = entry.checksum().orElse("");
    boolean digestMatches = matches(entry, files, record);
    if (!restore && digestMatches) {
      records.put(name, new ConvergenceState.Record(identity, checksum, files.digest().orElse(null), null, null));
      verified.add(name);
      return Step.VERIFIED;
    }
    if (!restore) {
      String lastVerified = record == null ? null : record.verified();
      if (lastVerified != null && !lastVerified.equals(checksum)) {
        restore = true;  // the pin moved since this checkout last verified it: its files are the old pin's
      } else if (lastVerified == null && !exact && !satisfies(entry.version(), files.version().get())) {
        restore = true;  // a constraint pin never verified here, its range not met by what is installed
      } else {
        warnings.add(name + " " + files.version().orElse("?") + " differs from what the lockfile pins (edited"
            + " locally): kept as it is; install it again to replace it");
        ConvergenceState.Record before = records.get(name);
        records.put(name, new ConvergenceState.Record(identity, checksum,
            before == null ? null : before.filesChecksum(), null, null));
        return Step.DRIFT;
      }
    }
    ConvergenceState.Record current = records.get(name);
    if (current != null && current.unrestorable() != null) {
      skipped.add(name);
      return Step.SKIP;
    }
    if (current != null && current.retry() != null && !isDue(current.retry())) {
      skipped.add(name);
      return Step.SKIP;
    }
    if (entry.checksum().isEmpty()) {
      block(name, identity, UnrestorableReason.UNPINNED, "its lockfile entry has no checksum, so it pins no archive");
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
    ConvergenceState.Record record = records.get(name);
    ConvergeWork.LocalFiles files = steps.inspect(name, Optional.empty(), view);
    if (files.digest().isEmpty() && files.version().isEmpty()) {
      return Step.FORGET;  // nothing on disk
    }
    if (record == null || record.filesChecksum() == null || !files.digest().equals(Optional.of(record.filesChecksum()))) {
      warnings.add(name + " is no longer in the lockfile but its files were edited locally: kept as they are; remove"
          + " them to drop it");
      return Step.FORGET;
    }
    return Step.REMOVE;
  }

  private Optional<PreparedInstall> prepare(ExtensionName name, Lockfile view) {
    String identity = identity(view.entry(name).orElseThrow());
    try {
      return Optional.of(steps.prepare(name, view));
    } catch (RuntimeException e) {
      Optional<UnrestorableReason> reason = unrestorable(e);
      if (reason.isPresent()) {
        block(name, identity, reason.get(), e.getMessage());
      } else {
        retry(name, identity, e);
      }
      if (e instanceof ArchiveException a && a.code().equals(ArchiveException.CANCELLED)) {
        Thread.currentThread().interrupt();
      }
    }
    return Optional.empty();
  }

  /**
   * Returns why a restore that failed with {@code failure} cannot succeed until its entry changes,
   * or empty when it failed for a passing reason (it is retried).
   */
  static Optional<UnrestorableReason> unrestorable(RuntimeException failure) {
    if (failure instanceof ArchiveException archive) {
      return switch (archive.code()) {
        case ArchiveException.TAMPERED -> Optional.of(UnrestorableReason.TAMPERED);
        case ArchiveException.MISSING -> Optional.of(UnrestorableReason.ARCHIVE_MISSING);
        case ArchiveException.LIMIT -> Optional.of(UnrestorableReason.LIMIT);
        case ArchiveException.REJECTED, ArchiveException.CORRUPT -> Optional.of(UnrestorableReason.REJECTED);
        default -> Optional.empty();
      };
    }
    if (failure instanceof InstallException install) {
      return switch (install.code()) {
        // converge mode has no registry: the tier lacks the archive
        case InstallException.REGISTRY_UNAVAILABLE -> Optional.of(UnrestorableReason.ARCHIVE_MISSING);
        case InstallException.MANIFEST_MISMATCH -> Optional.of(UnrestorableReason.MANIFEST_MISMATCH);
        case InstallException.UNSAFE -> Optional.of(UnrestorableReason.UNSAFE);
        default -> Optional.empty();
      };
    }
    return Optional.empty();
  }

  /** Takes the try-lock and swaps; returns a result when the pass has to stop there (busy). */
  private Optional<Result> underLock(Lockfile shared, Lockfile view, Optional<String> readVersion,
      Map<ExtensionName, Step> plan,
      Map<ExtensionName, PreparedInstall> prepared) {
    Optional<Boolean> swapped = tierlock.tryWithPulledExtensionsLock(() -> swap(shared, view, readVersion, plan,
        prepared));
    if (swapped.isEmpty()) {
      warnings.add("another install, removal or convergence of this checkout is running: nothing was swapped");
      return Optional.of(busy());
    }
    if (!swapped.get()) {
      warnings.add("the lockfile changed during the pass (an install on this checkout): nothing was swapped");
      return Optional.of(busy());
    }
    return Optional.empty();
  }

  /**
   * Swaps under the pulled-extensions lock: recovers, restores, removes, then commits what it
   * applied once the change has ended.
   *
   * @return false when the lockfile changed since it was read (nothing was swapped), else true
   */
  private boolean swap(Lockfile shared, Lockfile view, Optional<String> readVersion, Map<ExtensionName, Step> plan,
      Map<ExtensionName, PreparedInstall> prepared) {
    if (!tierlock.cached().flatMap(LockfileRead::version).equals(readVersion) || pendingUnreadable()
        || !view.equals(withPending(shared))) {
      return false;
    }
    List<PendingInstall> applied = new ArrayList<>();
    List<Runnable> removals = new ArrayList<>();
    try (ConvergeContext change = new ConvergeContext(view)) {
      RecoveryReport recovered = steps.recover(change);
      if (!recovered.rolledForward().isEmpty() || !recovered.rolledBack().isEmpty()) {
        generation++;
        Map<ExtensionName, Step> again = replan(view, prepared);
        plan.clear();
        plan.putAll(again);
      }
      left.clear();
      for (InstallException judged : recovered.left()) {
        Path dir = judged.journal().map(Path::getParent).orElse(null);
        if (dir != null && dir.getFileName() != null) {
          left.add(dir.getFileName().toString());
        }
      }
      for (InstallException left : recovered.left()) {
        ExtensionName name = ExtensionName.of(left.extension());
        view.entry(name).ifPresent(e -> block(name, identity(e), UnrestorableReason.JOURNAL, left.getMessage()));
        prepared.remove(name);
      }
      for (Map.Entry<ExtensionName, PreparedInstall> e : prepared.entrySet()) {
        ExtensionName name = e.getKey();
        LockfileEntry entry = view.entry(name).orElseThrow();
        ConvergeWork.LocalFiles now = steps.inspect(name, Optional.of(entry), view);
        if (now.version().equals(Optional.of(e.getValue().version())) && now.missing().isEmpty()
            && (entry.filesChecksum().isEmpty() || entry.filesChecksum().equals(now.digest()))) {
          // recovery, or an install finished meanwhile, put it in place
          records.put(name, new ConvergenceState.Record(identity(entry), entry.checksum().orElse(""),
              now.digest().orElse(null), null, null));
          verified.add(name);
          continue;
        }
        try {
          applied.add(steps.apply(change, e.getValue()));
          restored.add(name);
        } catch (RuntimeException failure) {
          if (failure instanceof InstallException i && i.code().equals(InstallException.JOURNAL_INVALID)) {
            block(name, identity(entry), UnrestorableReason.JOURNAL, failure.getMessage());
          } else {
            retry(name, identity(entry), failure);
          }
        }
      }
      for (Map.Entry<ExtensionName, Step> e : plan.entrySet()) {
        if (e.getValue() == Step.FORGET) {
          records.remove(e.getKey());
        } else if (e.getValue() == Step.REMOVE) {
          try {
            steps.removeFiles(change, e.getKey()).ifPresent(removals::add);
            removed.add(e.getKey());
            records.remove(e.getKey());
          } catch (RuntimeException failure) {
            warnings.add("the files of " + e.getKey() + ", no longer in the lockfile, could not be removed: "
                + failure.getMessage());
          }
        }
      }
      change.finish();
      for (PendingInstall pending : applied) {
        try {
          pending.commit();
        } catch (RuntimeException failure) {
          warnings.add("the old files of " + pending.name() + " are left in staging (recovery deletes them): "
              + failure.getMessage());
        }
      }
      for (Runnable removal : removals) {
        try {
          removal.run();
        } catch (RuntimeException failure) {
          warnings.add("removed files are left in staging (recovery deletes them): " + failure.getMessage());
        }
      }
      for (ExtensionName name : restored) {
        LockfileEntry entry = view.entry(name).orElseThrow();
        ConvergeWork.LocalFiles after = steps.inspect(name, Optional.of(entry), view);
        records.put(name, new ConvergenceState.Record(identity(entry), entry.checksum().orElse(""),
            after.digest().orElse(null), null, null));
      }
      if (!restored.isEmpty() || !removed.isEmpty()) {
        generation++;
      }
    }
    return true;
  }

  private void block(ExtensionName name, String identity, UnrestorableReason reason, String detail) {
    ConvergenceState.Record before = records.get(name);
    records.put(name, new ConvergenceState.Record(identity, before == null ? null : before.verified(),
        before == null ? null : before.filesChecksum(), null, new ConvergenceState.Blocked(reason, detail)));
  }

  private void retry(ExtensionName name, String identity, Throwable failure) {
    ConvergenceState.Record before = records.get(name);
    int attempts = before == null || before.retry() == null ? 1 : before.retry().attempts() + 1;
    Duration wait = converger.retryWait(attempts);
    String reason = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    records.put(name, new ConvergenceState.Record(identity, before == null ? null : before.verified(),
        before == null ? null : before.filesChecksum(), new ConvergenceState.Retry(attempts, now.plus(wait), reason), null));
  }

  private boolean due() {
    return records.values().stream().anyMatch(r -> r.retry() != null && isDue(r.retry()));
  }

  /**
   * Returns whether {@code retry} is due now: its time has come, or it lies further ahead than any
   * wait ever set (the clock it was set by was ahead), which would otherwise hold it off for as long.
   */
  private boolean isDue(ConvergenceState.Retry retry) {
    return !retry.next().isAfter(now) || retry.next().isAfter(now.plus(Converger.LAST_RETRY));
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
      warnings.add("this checkout's pending change cannot be read: converged to the shared lockfile alone ("
          + e.getMessage() + ")");
      return shared;
    }
    return pending.map(p -> p.delta().applyTo(shared)).orElse(shared);
  }

  private Result unchanged() {
    ConvergeReport report = report(ConvergeOutcome.UNCHANGED, Optional.ofNullable(state.lockfileVersion()),
        Optional.ofNullable(state.lockfileSha256()), false);
    return new Result(report, null);
  }

  private Result busy() {
    return end(ConvergeOutcome.BUSY, null, null, false);
  }

  /** Ends the pass: the state is saved when the pass converged, or when it learnt something. */
  private Result end(ConvergeOutcome outcome, @Nullable String version, @Nullable String sha, boolean converged) {
    String warned = warnings.isEmpty() ? null : sha256(String.join("\n", warnings).getBytes(StandardCharsets.UTF_8));
    boolean fresh = !Objects.equals(warned, state.warned());
    ConvergenceState next = new ConvergenceState(converger.base(), converged ? version : state.lockfileVersion(),
        converged ? sha : state.lockfileSha256(), generation, warned, records, left);
    if (!next.equals(state) && !converger.saveState(next, warnings)) {
      fresh = true;
    }
    state = next;
    Optional<String> v = Optional.ofNullable(converged ? version : null);
    Optional<String> s = Optional.ofNullable(converged ? sha : null);
    return new Result(report(outcome, v, s, fresh), next);
  }

  private ConvergeReport report(ConvergeOutcome outcome, Optional<String> version, Optional<String> sha,
      boolean fresh) {
    List<ConvergeReport.Pending> pending = new ArrayList<>();
    List<ConvergeReport.Unrestorable> blocked = new ArrayList<>();
    records.forEach((name, r) -> {
      if (r.retry() != null) {
        pending.add(new ConvergeReport.Pending(name, r.retry().attempts(), r.retry().next(), r.retry().reason()));
      }
      if (r.unrestorable() != null) {
        blocked.add(new ConvergeReport.Unrestorable(name, r.unrestorable().reason(), r.unrestorable().detail()));
      }
    });
    return new ConvergeReport(outcome, restored, removed, verified, skipped, pending, blocked,
        List.copyOf(warnings), fresh, 0, 0, version, sha, generation);
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
