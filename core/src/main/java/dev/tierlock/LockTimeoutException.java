package dev.tierlock;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A lock was not acquired within its maximum wait. Nothing was changed; retry later, or
 * force-release the holder if it is known to be dead. Code {@code lock_timeout}.
 */
public final class LockTimeoutException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "lock_timeout";

  private final String lockKey;
  private final @Nullable LockInfo holder;
  private final Duration waited;

  /**
   * Creates the exception.
   *
   * @param lockKey the lock's key or path
   * @param holder the holder seen last, if known
   * @param waited how long the caller waited
   */
  public LockTimeoutException(String lockKey, @Nullable LockInfo holder, Duration waited) {
    super(CODE, "Cannot acquire lock \"" + lockKey + "\": held by "
        + (holder == null ? "an unknown holder" : holder.holder() + " (pid " + holder.pid() + ", nonce " + holder.nonce() + ")")
        + "; timed out after " + waited.toMillis() + " ms");
    this.lockKey = lockKey;
    this.holder = holder;
    this.waited = waited;
  }

  /** Returns the lock's key or path. */
  public String lockKey() {
    return lockKey;
  }

  /** Returns the holder seen last, if known. */
  public Optional<LockInfo> holder() {
    return Optional.ofNullable(holder);
  }

  /** Returns how long the caller waited. */
  public Duration waited() {
    return waited;
  }
}
