package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one convergence pass did. Never thrown: a per-entry failure is a {@link Pending} (tried
 * again with backoff) or an {@link Unrestorable}; a failure of the whole pass is its {@link #outcome()}.
 *
 * @param outcome how the pass ended as a whole
 * @param restored entries whose files were swapped in from the tier
 * @param removed extensions the lockfile no longer has whose files were swapped out
 * @param verified entries whose files were checked and match the entry
 * @param skipped entries not looked at: a retry not yet due, or unrestorable and unchanged
 * @param pending entries whose restore failed for a passing reason, each with its next attempt
 * @param unrestorable entries that cannot be restored until their entry changes, each with why
 * @param warnings what the caller should know (local edits kept, state not saved, ...), sorted
 * @param newWarnings whether {@code warnings} differ from what the last pass warned of (warn once)
 * @param requests the datastore requests the pass made
 * @param bytes the body bytes those requests downloaded
 * @param lockfileVersion the store's version of the lockfile converged to, empty when none was read
 * @param lockfileSha256 the SHA-256 (hex) of the lockfile converged to (this checkout's pending change
 *     included), empty when none was read
 * @param restoreGeneration the count of passes and recoveries that changed files on this checkout;
 *     moves only once those changes are complete and recorded
 */
public record ConvergeReport(Outcome outcome, List<ExtensionName> restored, List<ExtensionName> removed,
    List<ExtensionName> verified, List<ExtensionName> skipped, List<Pending> pending, List<Unrestorable> unrestorable,
    List<String> warnings, boolean newWarnings, long requests, long bytes, Optional<String> lockfileVersion,
    Optional<String> lockfileSha256, long restoreGeneration) {

  /**
   * Copies the lists.
   *
   * @param outcome how the pass ended as a whole
   * @param restored entries whose files were swapped in from the tier
   * @param removed extensions the lockfile no longer has whose files were swapped out
   * @param verified entries whose files were checked and match the entry
   * @param skipped entries not looked at: a retry not yet due, or unrestorable and unchanged
   * @param pending entries whose restore failed for a passing reason, each with its next attempt
   * @param unrestorable entries that cannot be restored until their entry changes, each with why
   * @param warnings what the caller should know (local edits kept, state not saved, ...), sorted
   * @param newWarnings whether {@code warnings} differ from what the last pass warned of (warn once)
   * @param requests the datastore requests the pass made
   * @param bytes the body bytes those requests downloaded
   * @param lockfileVersion the store's version of the lockfile converged to, empty when none was read
   * @param lockfileSha256 the SHA-256 (hex) of the lockfile converged to (this checkout's pending change
   *     included), empty when none was read
   * @param restoreGeneration the count of passes and recoveries that changed files on this checkout;
   *     moves only once those changes are complete and recorded
   */
  public ConvergeReport {
    Objects.requireNonNull(outcome, "outcome");
    restored = List.copyOf(restored);
    removed = List.copyOf(removed);
    verified = List.copyOf(verified);
    skipped = List.copyOf(skipped);
    pending = List.copyOf(pending);
    unrestorable = List.copyOf(unrestorable);
    warnings = List.copyOf(warnings);
    Objects.requireNonNull(lockfileVersion, "lockfileVersion");
    Objects.requireNonNull(lockfileSha256, "lockfileSha256");
  }

  /** {@return whether the pass swapped files on this checkout (restored or removed an extension)} */
  public boolean changedFiles() {
    return !restored.isEmpty() || !removed.isEmpty();
  }

  /** How a convergence pass ended as a whole (what happened to each entry is in the rest of the report). */
  public enum Outcome {
    /** The pass ran: each entry is restored, verified, removed, pending or unrestorable. */
    CONVERGED,
    /** Nothing was due: the lockfile is the one the last pass converged to, and no retry is due. */
    UNCHANGED,
    /**
     * Another install, removal or convergence of this checkout holds its pulled-extensions lock (or
     * changed the lockfile during the pass): nothing was swapped; the next pass tries again.
     */
    BUSY,
    /**
     * This checkout's pending-change record cannot be read, so what it pins here is unknown (it may
     * hold an install not yet published), or an interrupted install left a journal that names no
     * extension: nothing was swapped until it is resolved (the record re-applied or discarded, the
     * journal's staging looked at and removed), as every transaction (or install) of the checkout is
     * refused until then.
     */
    BLOCKED,
    /** The datastore holds no shared lockfile: nothing was touched. */
    NO_LOCKFILE,
    /** The shared lockfile does not parse: nothing was touched. */
    LOCKFILE_UNREADABLE,
    /** The shared lockfile could not be read (the store failed, refused or was interrupted): nothing was touched. */
    UNAVAILABLE
  }

  /**
   * An entry whose restore failed for a passing reason.
   *
   * @param name the extension
   * @param attempts how many passes failed it in a row
   * @param nextAttempt when the next pass tries it again (1 minute after the first failure, doubling up to 1 hour, jittered)
   * @param reason the last failure
   */
  public record Pending(ExtensionName name, int attempts, Instant nextAttempt, String reason) {
    /**
     * Validates it.
     *
     * @param name the extension
     * @param attempts how many passes failed it in a row
     * @param nextAttempt when the next pass tries it again (1 minute after the first failure, doubling up to 1 hour, jittered)
     * @param reason the last failure
     */
    public Pending {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(nextAttempt, "nextAttempt");
      Objects.requireNonNull(reason, "reason");
      if (attempts < 1) {
        throw new IllegalArgumentException("Cannot report " + attempts + " attempts: at least 1");
      }
    }
  }

  /**
   * An entry that cannot be restored until it changes.
   *
   * @param name the extension
   * @param reason why, as a kind
   * @param detail why, in words
   */
  public record Unrestorable(ExtensionName name, Reason reason, String detail) {
    /**
     * Validates it.
     *
     * @param name the extension
     * @param reason why, as a kind
     * @param detail why, in words
     */
    public Unrestorable {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(detail, "detail");
    }

    /**
     * Why an entry cannot be restored from the tier. An unrestorable entry is not tried again until its
     * lockfile entry changes, or a full pass ({@link Converger#convergeFully()}) is asked for.
     */
    public enum Reason {
      /** The entry has no checksum, so it pins no archive. */
      UNPINNED,
      /** The tier holds no archive for the entry's checksum. */
      ARCHIVE_MISSING,
      /** The tier's archive does not hash to the entry's checksum. */
      TAMPERED,
      /** The archive is over a size or entry-count cap. */
      LIMIT,
      /** The archive is corrupt or holds a hostile entry (an escape, a link out, a device). */
      REJECTED,
      /** The archive's manifest names another extension or version than the entry pins. */
      MANIFEST_MISMATCH,
      /** The safety analysis refused the archive's files. */
      UNSAFE,
      /** An interrupted install of it cannot be judged: it is left for an operator. */
      JOURNAL
    }
  }
}
