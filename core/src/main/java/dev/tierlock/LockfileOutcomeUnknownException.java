package dev.tierlock;

import org.jspecify.annotations.Nullable;

/**
 * A lockfile write went unanswered and whether it landed cannot be proven: the shared lockfile has
 * moved on since, and its commit lineage neither includes the write nor shows the lockfile still as
 * the write found it (see {@link LockfileHead}). Re-applying the change could revert what another
 * checkout published meanwhile, so it is neither retried nor kept pending: the change may or may not
 * be in the shared lockfile. Look at the shared lockfile and redo the change if it is missing. Code
 * {@code lockfile_outcome_unknown}.
 */
public final class LockfileOutcomeUnknownException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "lockfile_outcome_unknown";

  private final transient LockfileDelta delta;
  private final String commitId;

  /**
   * Creates the exception.
   *
   * @param target where the change was published
   * @param delta the change whose outcome is unknown
   * @param commitId the commit id of the unanswered write
   * @param now the shared lockfile as read back, or {@code null} when it no longer exists
   * @param cause the unanswered write's failure, if known
   */
  public LockfileOutcomeUnknownException(String target, LockfileDelta delta, String commitId, @Nullable LockfileHead now,
      @Nullable Throwable cause) {
    super(CODE, "Cannot confirm lockfile change to " + target + ": the write of commit " + commitId
        + " went unanswered and the shared lockfile has moved on since ("
        + (now == null ? "it no longer exists" : "now version " + now.version().value()
            + now.commitId().map(id -> " of commit " + id).orElse(" written without a commit id"))
        + ") without that commit in its lineage; the change (" + ManagedConfigUnpublishedException.describe(delta)
        + ") may or may not be in it, and it is not retried, so that no other checkout's change is reverted;"
        + " check the shared lockfile and redo the change if it is missing", cause);
    this.delta = delta;
    this.commitId = commitId;
  }

  /** {@return the change whose outcome is unknown} */
  public LockfileDelta delta() {
    return delta;
  }

  /** {@return the commit id of the unanswered write} */
  public String commitId() {
    return commitId;
  }
}
