package dev.tierlock;

import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A lockfile change could not be published, and provably did not land: the datastore stayed
 * unavailable or busy, or the shared lockfile kept changing, past the transaction's deadline or its
 * most attempts. The change is kept in the checkout's pending-change record and the next
 * transaction on this checkout publishes it; nothing is rolled back.
 *
 * <p>Code {@code managed_config_unpublished}.
 */
public final class ManagedConfigUnpublishedException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "managed_config_unpublished";

  private final transient LockfileDelta delta;
  /** The pending-change record that keeps the change. */
  private final Path record;
  /** What else the run reports, one sentence each. */
  private final List<String> warnings;

  /**
   * Creates the exception.
   *
   * @param target where the change was to be published
   * @param delta the change kept pending
   * @param record the pending-change record that keeps it
   * @param attempts how many publish attempts were made
   * @param cause the last failure, or {@code null} when every attempt met a newer lockfile
   */
  public ManagedConfigUnpublishedException(String target, LockfileDelta delta, Path record, int attempts,
      @Nullable Throwable cause) {
    this(target, delta, record, attempts, cause, List.of());
  }

  /**
   * Creates the exception, with what else the transaction dropped or left behind.
   *
   * @param target where the change was to be published
   * @param delta the change kept pending
   * @param record the pending-change record that keeps it
   * @param attempts how many publish attempts were made
   * @param cause the last failure, or {@code null} when every attempt met a newer lockfile
   * @param warnings what else the run reports, one sentence each
   */
  public ManagedConfigUnpublishedException(String target, LockfileDelta delta, Path record, int attempts,
      @Nullable Throwable cause, List<String> warnings) {
    super(CODE, "Cannot publish lockfile change to " + target + " (" + attempts
        + (attempts == 1 ? " attempt" : " attempts") + "): "
        + (cause != null ? cause.getMessage() : "the shared lockfile changed before each attempt")
        + "; the change (" + PendingChange.describe(delta) + ") is saved in " + record
        + " and the next transaction on this checkout publishes it" + TransactionResult.also(warnings), cause);
    this.delta = delta;
    this.record = record;
    this.warnings = List.copyOf(warnings);
  }

  /** {@return what else the run reports, one sentence each; empty when nothing} */
  public List<String> warnings() {
    return warnings;
  }

  /** {@return the change kept pending} */
  public LockfileDelta delta() {
    return delta;
  }

  /** {@return the pending-change record that keeps it} */
  public Path record() {
    return record;
  }
}
