package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
  /** The names whose files a restore replaces that are not known to be unedited: kept before the swap, each with why. */
  final Map<ExtensionName, String> keep = new TreeMap<>();
  long generation;
  /** The datastore requests, and their body bytes, spent off the pass's thread (restores prepared by workers). */
  long requests;
  long bytes;

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
      records.replaceAll((name, r) -> r.forEntry(r.entry()));
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
    keep.clear();
  }

  /**
   * Records {@code name} as verified at {@code entry}'s checksum, with the digests of {@code files}
   * (what later tells an edit); where earlier edits were kept stays recorded. Files that match the
   * entry's {@code filesChecksum} may still differ in what it leaves out (skills, bundles): the
   * skipped-files digest recorded when this checksum was first verified or restored is kept, so an
   * edit there is never taken for the pin's files.
   */
  void verify(ExtensionName name, LockfileEntry entry, ConvergeWork.LocalFiles files) {
    ConvergenceState.Record before = records.get(name);
    String checksum = entry.checksum().orElse("");
    String skipped = before != null && before.skippedChecksum() != null && checksum.equals(before.verified())
        ? before.skippedChecksum() : files.skipped();
    records.put(name, new ConvergenceState.Record(identity(entry), checksum, files.digest().orElse(null), null, null,
        skipped, before == null ? null : before.keptAt()));
  }

  /** Records {@code name} as just restored at {@code entry}'s checksum: its files, every one, are the pin's. */
  void restored(ExtensionName name, LockfileEntry entry, ConvergeWork.LocalFiles files) {
    ConvergenceState.Record before = records.get(name);
    records.put(name, new ConvergenceState.Record(identity(entry), entry.checksum().orElse(""),
        files.digest().orElse(null), null, null, files.skipped(), before == null ? null : before.keptAt()));
  }

  /** Records that the edits of {@code name} were kept at {@code where}, once the restore over them is recorded. */
  void kept(ExtensionName name, String where) {
    ConvergenceState.Record r = records.get(name);
    if (r != null) {
      records.put(name, new ConvergenceState.Record(r.entry(), r.verified(), r.filesChecksum(), r.retry(),
          r.unrestorable(), r.skippedChecksum(), where));
    }
  }

  /** Records {@code name} as unrestorable for {@code reason} until its entry changes. */
  void block(ExtensionName name, String identity, ConvergeReport.Unrestorable.Reason reason, String detail) {
    ConvergenceState.Record before = records.get(name);
    ConvergenceState.Blocked verdict = new ConvergenceState.Blocked(reason, detail);
    records.put(name, before == null ? new ConvergenceState.Record(identity, null, null, null, verdict)
        : before.with(identity, null, verdict));
  }

  /** Records a failed restore of {@code name}, retried after a wait that grows with its attempts. */
  void retry(ExtensionName name, String identity, Throwable failure) {
    ConvergenceState.Record before = records.get(name);
    int attempts = before == null || before.retry() == null ? 1 : before.retry().attempts() + 1;
    String reason = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    ConvergenceState.Retry next = new ConvergenceState.Retry(attempts, now.plus(retryWait.apply(attempts)), reason);
    records.put(name, before == null ? new ConvergenceState.Record(identity, null, null, next, null)
        : before.with(identity, next, null));
  }

  /**
   * Records that the restore of {@code name} was cancelled (the pass was interrupted before it was
   * applied): reported pending, due again at once, its count of failed attempts not raised (a
   * cancelled pass is no failed attempt, and is not backed off).
   */
  void cancelled(ExtensionName name, String identity, Throwable failure) {
    ConvergenceState.Record before = records.get(name);
    int attempts = before == null || before.retry() == null ? 1 : before.retry().attempts();
    String reason = failure.getClass().getSimpleName() + ": " + failure.getMessage();
    ConvergenceState.Retry next = new ConvergenceState.Retry(attempts, now, reason);
    records.put(name, before == null ? new ConvergenceState.Record(identity, null, null, next, null)
        : before.with(identity, next, null));
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

  /** Counts {@code count} requests that downloaded {@code downloaded} bytes, made for the pass on other threads. */
  void spent(long count, long downloaded) {
    requests += count;
    bytes += downloaded;
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
