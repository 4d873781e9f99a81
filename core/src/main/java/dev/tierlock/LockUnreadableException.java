package dev.tierlock;

import org.jspecify.annotations.Nullable;

/**
 * A lock exists but its body is not a lock record Tierlock can read (empty, truncated, not JSON, or
 * missing a field), so its holder cannot be told. Nothing was changed. A lease lock treats such a
 * lock as held until its version has stayed unchanged for longer than the lock's ttl, and then takes
 * it over; an operator cannot force-release it by nonce. Code {@code lock_unreadable}.
 */
public final class LockUnreadableException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "lock_unreadable";

  /** The lock's key or path. */
  private final String lockKey;

  /**
   * Creates the exception.
   *
   * @param lockKey the lock's key or path
   * @param reason what is wrong with the body
   * @param cause the parse failure, if any
   */
  public LockUnreadableException(String lockKey, String reason, @Nullable Throwable cause) {
    super(CODE, "Cannot read lock \"" + lockKey + "\": " + reason, cause);
    this.lockKey = lockKey;
  }

  /** {@return the lock's key or path} */
  public String lockKey() {
    return lockKey;
  }
}
