package dev.tierlock;

/**
 * The shared lockfile could not be fetched (or the global lock could not be taken for a reason
 * other than a timeout), so no change was made. Retry later. Code {@code
 * managed_lockfile_unavailable}.
 */
public final class ManagedLockfileUnavailableException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "managed_lockfile_unavailable";

  /**
   * Creates the exception.
   *
   * @param what what could not be done, {@code Cannot <verb> <object>}
   * @param cause why
   */
  public ManagedLockfileUnavailableException(String what, Throwable cause) {
    super(CODE, what + ": " + cause.getMessage() + "; no lockfile entry was changed", cause);
  }
}
