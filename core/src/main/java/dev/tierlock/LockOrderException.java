package dev.tierlock;

/**
 * A thread tried to take a lock out of order (an outer {@link LockLevel} while holding an inner
 * one). A programming error: nothing was acquired. Code {@code lock_order}.
 */
public final class LockOrderException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "lock_order";

  /**
   * Creates the exception.
   *
   * @param wanted the level the thread tried to take
   * @param held the innermost level it holds
   * @param what the lock it tried to take
   */
  public LockOrderException(LockLevel wanted, LockLevel held, String what) {
    super(CODE, "Cannot acquire " + what + ": the " + wanted + " lock is taken before the " + held
        + " lock, and this thread already holds the " + held + " lock (lock order is GLOBAL -> PULLED_EXTENSIONS -> LOCKFILE)");
  }
}
