package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What convergence remembers of one checkout between passes, in its state directory: which
 * datastore it converged from (the base), the lockfile it converged to, a record per extension (the
 * entry it applies to, what was last verified, a retry with backoff, or why it is unrestorable), the
 * restore generation and the digest of the warnings last given. Immutable.
 *
 * @param base the datastore identity and namespace the state belongs to
 * @param lockfileVersion the store's version of the lockfile last converged to, or null
 * @param lockfileSha256 its SHA-256 (this checkout's pending change included), or null
 * @param restoreGeneration the count of passes and recoveries that changed files
 * @param warned the digest of the warnings last given, or null
 * @param records per extension, sorted by name
 * @param left the staging directories whose journals recovery could not judge (left for an
 *     operator): the gate does not count them as a recovery due
 */
record ConvergenceState(String base, @Nullable String lockfileVersion, @Nullable String lockfileSha256,
    long restoreGeneration, @Nullable String warned, Map<ExtensionName, Record> records,
    java.util.SortedSet<String> left) {

  /** The schema version this code reads and writes. */
  static final int SCHEMA_VERSION = 2;

  ConvergenceState {
    Objects.requireNonNull(base, "base");
    records = java.util.Collections.unmodifiableMap(new TreeMap<>(records));
    left = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(left));
    if (restoreGeneration < 0) {
      throw new IllegalArgumentException("restoreGeneration " + restoreGeneration + " is negative");
    }
  }

  /** Returns the state of a checkout that has never converged from {@code base}. */
  static ConvergenceState fresh(String base, long restoreGeneration) {
    return new ConvergenceState(base, null, null, restoreGeneration, null, Map.of(), new java.util.TreeSet<>());
  }

  Optional<Record> record(ExtensionName name) {
    return Optional.ofNullable(records.get(name));
  }

  /** {@return what the gate of a pass needs of this state: its header} */
  Header header() {
    boolean settled = records.values().stream().allMatch(r -> r.retry() == null && r.unrestorable() == null);
    return new Header(base, lockfileVersion, lockfileSha256, restoreGeneration, settled, left);
  }

  /**
   * What the gate of a pass needs of the state, kept on the first line of the state file so that a
   * pass with nothing to do reads that line alone, whatever the number of records below it.
   *
   * @param base as the state's
   * @param lockfileVersion as the state's
   * @param lockfileSha256 as the state's
   * @param restoreGeneration as the state's
   * @param settled whether no record holds a retry or an unrestorable verdict: only then can the
   *     gate decide, and the report list, without the records
   * @param left as the state's
   */
  record Header(String base, @Nullable String lockfileVersion, @Nullable String lockfileSha256,
      long restoreGeneration, boolean settled, java.util.SortedSet<String> left) {
    Header {
      Objects.requireNonNull(base, "base");
      left = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(left));
    }
  }

  /**
   * What convergence knows of one extension.
   *
   * @param entry the SHA-256 of the lockfile entry (canonical JSON) the record applies to; a record
   *     for another entry is stale, except its {@code verified}, {@code filesChecksum}, {@code
   *     skippedChecksum} and {@code keptAt}
   * @param verified the checksum of the entry last verified on disk ({@code ""} for an entry without
   *     one), or null when never verified (lastVerified)
   * @param filesChecksum the digest of the files when last verified or restored, or null
   * @param retry a failed restore to try again, or null
   * @param unrestorable why it cannot be restored while the entry stays, or null
   * @param skippedChecksum the digest of the files a restore replaces that {@code filesChecksum}
   *     leaves out (skills, {@code ._*} files, bundle roots) when last verified or restored, or null
   *     when not recorded (a state written before it was kept)
   * @param keptAt where the last pass that restored over local edits kept them, or null
   */
  record Record(String entry, @Nullable String verified, @Nullable String filesChecksum, @Nullable Retry retry,
      @Nullable Blocked unrestorable, @Nullable String skippedChecksum, @Nullable String keptAt) {
    Record {
      Objects.requireNonNull(entry, "entry");
    }

    /** A record with no skipped-files digest and nothing kept. */
    Record(String entry, @Nullable String verified, @Nullable String filesChecksum, @Nullable Retry retry,
        @Nullable Blocked unrestorable) {
      this(entry, verified, filesChecksum, retry, unrestorable, null, null);
    }

    /** {@return this record for {@code newEntry}, with no retry or verdict, keeping what was verified and kept} */
    Record forEntry(String newEntry) {
      return new Record(newEntry, verified, filesChecksum, null, null, skippedChecksum, keptAt);
    }

    /** {@return this record with {@code newRetry} and {@code newVerdict}, the rest kept} */
    Record with(String newEntry, @Nullable Retry newRetry, @Nullable Blocked newVerdict) {
      return new Record(newEntry, verified, filesChecksum, newRetry, newVerdict, skippedChecksum, keptAt);
    }
  }

  /** A failed restore: how many in a row, when to try again, and the last reason. */
  record Retry(int attempts, Instant next, String reason) {
    Retry {
      if (attempts < 1) {
        throw new IllegalArgumentException("retry attempts " + attempts + " is below 1");
      }
      Objects.requireNonNull(next, "next");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Why an entry is unrestorable. */
  record Blocked(ConvergeReport.Unrestorable.Reason reason, String detail) {
    Blocked {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
    }
  }
}
