package dev.tierlock;

/**
 * The thread was interrupted while Tierlock waited (for a lock or a backoff). The interrupt flag is
 * set again. What had been done so far is kept as after any other failure at that point. Code
 * {@code interrupted}.
 */
public final class InterruptedOperationException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "interrupted";

  /**
   * Creates the exception and sets the current thread's interrupt flag again.
   *
   * @param what what was being waited for, {@code Cannot <verb> <object>}
   * @param cause the interruption
   */
  public InterruptedOperationException(String what, InterruptedException cause) {
    super(CODE, what + ": the thread was interrupted", cause);
    Thread.currentThread().interrupt();
  }
}
