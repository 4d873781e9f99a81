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
public record ConvergeReport(ConvergeOutcome outcome, List<ExtensionName> restored, List<ExtensionName> removed,
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
  public record Unrestorable(ExtensionName name, UnrestorableReason reason, String detail) {
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
  }
}
