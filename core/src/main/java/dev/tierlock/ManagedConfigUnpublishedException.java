package dev.tierlock;

import java.nio.file.Path;

/**
 * A lockfile change was made locally but could not be published to the datastore (it stayed
 * unavailable or throttled past the transaction's deadline, refused access, or the outcome stayed
 * unknown). The change is kept in the checkout's pending-change record and the next transaction
 * (or {@link LockfileTransaction#refresh()}) publishes it; nothing is rolled back. Code {@code
 * managed_config_unpublished}.
 */
public final class ManagedConfigUnpublishedException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "managed_config_unpublished";

  private final transient LockfileDelta delta;
  private final Path record;

  /**
   * Creates the exception.
   *
   * @param target where the change was to be published
   * @param delta the change kept pending
   * @param record the pending-change record that keeps it
   * @param attempts how many publish attempts were made
   * @param cause why publishing failed
   */
  public ManagedConfigUnpublishedException(String target, LockfileDelta delta, Path record, int attempts, Throwable cause) {
    super(CODE, "Cannot publish lockfile change to " + target + " (" + attempts + (attempts == 1 ? " attempt" : " attempts")
        + "): " + cause.getMessage()
        + "; the change (" + describe(delta) + ") is saved locally in " + record
        + " and is published by the next transaction", cause);
    this.delta = delta;
    this.record = record;
  }

  /** Returns the change kept pending. */
  public LockfileDelta delta() {
    return delta;
  }

  /** Returns the pending-change record that keeps it. */
  public Path record() {
    return record;
  }

  static String describe(LockfileDelta delta) {
    StringBuilder out = new StringBuilder();
    delta.upserts().forEach((name, entry) -> out.append(out.length() > 0 ? ", " : "").append("set ").append(name)
        .append(" ").append(entry.version()));
    delta.removals().forEach(name -> out.append(out.length() > 0 ? ", " : "").append("remove ").append(name));
    return out.length() == 0 ? "no entry change" : out.toString();
  }
}
