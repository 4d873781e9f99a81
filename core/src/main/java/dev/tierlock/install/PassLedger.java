package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * What one convergence pass learns, entry by entry: the records it saves in the state (what was
 * verified, a retry, why an entry is unrestorable), the names of each list of its report, its
 * warnings, the journals left for an operator and the restore generation. The plan and the swap
 * write it; the pass turns it into the state and the report. Single use, on the pass's thread.
 */
final class PassLedger {

  final Map<ExtensionName, ConvergenceState.Record> records = new TreeMap<>();
  final List<ExtensionName> restored = new ArrayList<>();
  final List<ExtensionName> removed = new ArrayList<>();
  final List<ExtensionName> verified = new ArrayList<>();
  final List<ExtensionName> skipped = new ArrayList<>();
  final TreeSet<String> warnings = new TreeSet<>();
  final SortedSet<String> left = new TreeSet<>();
  long generation;

  private final Instant now;
  private final IntFunction<Duration> retryWait;
  private Map<ExtensionName, ConvergenceState.Record> baselineRecords = Map.of();
  private SortedSet<String> baselineWarnings = new TreeSet<>();

  /**
   * Creates the ledger of a pass that runs at {@code now}, waiting {@code retryWait} of the attempt
   * count before the next retry of a failed restore.
   */
  PassLedger(Instant now, IntFunction<Duration> retryWait) {
    this.now = now;
    this.retryWait = retryWait;
  }

  /** Starts from what {@code state} recorded; in a full pass, without its retries and unrestorable verdicts. */
  void load(ConvergenceState state, boolean full) {
    generation = state.restoreGeneration();
    records.putAll(state.records());
    left.addAll(state.left());
    if (full) {
      records.replaceAll((name, r) -> new ConvergenceState.Record(r.entry(), r.verified(), r.filesChecksum(), null,
          null));
    }
  }

  /** Remembers the records and warnings as they are before the plan, for {@link #resetToBaseline}. */
  void markBaseline() {
    baselineRecords = new TreeMap<>(records);
    baselineWarnings = new TreeSet<>(warnings);
  }

  /** Forgets what the plan decided: records and warnings as {@link #markBaseline} saw them, none verified or skipped. */
  void resetToBaseline() {
    records.clear();
    records.putAll(baselineRecords);
    warnings.clear();
    warnings.addAll(baselineWarnings);
    verified.clear();
    skipped.clear();
  }

  /** Records {@code name} as verified at {@code entry}'s checksum, with the files' {@code digest}. */
  void verify(ExtensionName name, LockfileEntry entry, Optional<String> digest) {
    records.put(name, new ConvergenceState.Record(identity(entry), entry.checksum().orElse(""), digest.orElse(null),
        null, null));
  }

  /** Records {@code name} as unrestorable for {@code reason} until its entry changes. */
  void block(ExtensionName name, String identity, ConvergeReport.Unrestorable.Reason reason, String detail) {
    ConvergenceState.Record before = records.get(name);
    records.put(name, new ConvergenceState.Record(identity, before == null ? null : before.verified(),
        before == null ? null : before.filesChecksum(), null, new ConvergenceState.Blocked(reason, detail)));
  }

  /** Records a failed restore of {@code name}, retried after a wait that grows with its attempts. */
  void retry(ExtensionName name, String identity, Throwable failure) {
    ConvergenceState.Record before = records.get(name);
    int attempts = before == null || before.retry() == null ? 1 : before.retry().attempts() + 1;
    String reason = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    records.put(name, new ConvergenceState.Record(identity, before == null ? null : before.verified(),
        before == null ? null : before.filesChecksum(),
        new ConvergenceState.Retry(attempts, now.plus(retryWait.apply(attempts)), reason), null));
  }

  /** Returns whether a retry is due now. */
  boolean due() {
    return records.values().stream().anyMatch(r -> r.retry() != null && isDue(r.retry()));
  }

  /**
   * Returns whether {@code retry} is due now: its time has come, or it lies further ahead than any
   * wait ever set (the clock it was set by was ahead), which would otherwise hold it off for as long.
   */
  boolean isDue(ConvergenceState.Retry retry) {
    return !retry.next().isAfter(now) || retry.next().isAfter(now.plus(Converger.LAST_RETRY));
  }

  /** Returns the record of {@code name}, or null. */
  ConvergenceState.@Nullable Record record(ExtensionName name) {
    return records.get(name);
  }

  /** Returns the identity of {@code entry}: the SHA-256 of its canonical JSON, which a record applies to. */
  static String identity(LockfileEntry entry) {
    return ConvergePass.identity(entry);
  }
}
