package dev.tierlock;

import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A change of this checkout may or may not be in the shared lockfile, and Tierlock will neither
 * drop it nor re-apply it on its own. {@link #pending()} says which case it is:
 *
 * <ul>
 *   <li>{@link PendingChange.State#IN_FLIGHT}: a write went unanswered and no read-back succeeded
 *       before the deadline. The change is kept; the next transaction on this checkout reads the
 *       lineage back and publishes it again only if it provably did not land.
 *   <li>{@link PendingChange.State#OUTCOME_UNKNOWN}: the lineage cannot prove it either way. The
 *       change is kept and every transaction on this checkout fails with this exception until the
 *       caller decides: {@link LockfileTransaction#reapplyPending()} (leaves alone an entry
 *       another checkout changed to another value; sets again one still at its old value) or {@link LockfileTransaction#discardPending()}; on the
 *       command line {@code tierlock pending apply} or {@code tierlock pending discard}.
 *   <li>{@link PendingChange.State#UNREADABLE}: the record cannot be read (damaged, or written by a
 *       newer Tierlock); every transaction fails until it is discarded.
 * </ul>
 *
 * <p>Code {@code lockfile_outcome_unknown}.
 */
public final class LockfileOutcomeUnknownException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "lockfile_outcome_unknown";

  private final transient PendingChange pending;
  /** What else the run reports, one sentence each. */
  private final List<String> warnings;

  /**
   * Creates the exception.
   *
   * @param target the shared lockfile
   * @param pending the change in doubt, as recorded
   * @param cause the last failure, if any
   */
  public LockfileOutcomeUnknownException(String target, PendingChange pending, @Nullable Throwable cause) {
    this(target, pending, cause, List.of());
  }

  /**
   * Creates the exception, with what else the transaction dropped or left behind.
   *
   * @param target the shared lockfile
   * @param pending the change in doubt, as recorded
   * @param cause the last failure, if any
   * @param warnings what else the run reports, one sentence each
   */
  public LockfileOutcomeUnknownException(String target, PendingChange pending, @Nullable Throwable cause,
      List<String> warnings) {
    super(CODE, message(target, pending) + TransactionResult.also(warnings), cause);
    this.pending = pending;
    this.warnings = List.copyOf(warnings);
  }

  /** {@return what else the run reports, one sentence each; empty when nothing} */
  public List<String> warnings() {
    return warnings;
  }

  private static String message(String target, PendingChange pending) {
    String change = PendingChange.describe(pending.delta());
    String commit = pending.commitId().map(id -> " (commit " + id + ")").orElse("");
    return switch (pending.state()) {
      case UNREADABLE -> "Cannot run a transaction on " + target + ": the pending-change record " + pending.record()
          + " cannot be read (" + pending.reason().orElse("unknown reason") + "); it may hold a change that was never"
          + " published; check the shared lockfile, then discard it (tierlock pending discard)";
      case OUTCOME_UNKNOWN -> "Cannot confirm lockfile change to " + target + commit + ": "
          + pending.reason().orElse("its landing cannot be proven") + "; the change (" + change + ") is kept in "
          + pending.record() + " and every transaction on this checkout fails until you re-apply it (tierlock pending"
          + " apply: an entry another checkout changed to another value since is left alone; one still at the value the"
          + " change was made on is set again, even where another checkout set it back to that value after the change"
          + " landed) or discard it (tierlock pending discard)";
      default -> "Cannot confirm lockfile change to " + target + commit + ": its write went unanswered and reading the"
          + " shared lockfile back failed; the change (" + change + ") is kept in " + pending.record() + " and the next"
          + " transaction on this checkout settles it from the lineage, publishing it again only if it did not land";
    };
  }

  /** {@return the change in doubt, as recorded} */
  public PendingChange pending() {
    return pending;
  }

  /** {@return the change in doubt (empty when the record is unreadable)} */
  public LockfileDelta delta() {
    return pending.delta();
  }

  /** {@return the commit id of the unanswered write, if one was sent} */
  public Optional<String> commitId() {
    return pending.commitId();
  }
}
