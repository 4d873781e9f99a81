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

  /** The lock's key or path. */
  private final String lockKey;
  /** The holder seen last, or null when not known. */
  private final @Nullable LockInfo holder;
  /** How long the caller waited. */
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

  private LockTimeoutException(String lockFile, Duration waited, String heldBy) {
    super(CODE, "Cannot acquire lock \"" + lockFile + "\": held by " + heldBy + "; timed out after " + waited.toMillis() + " ms");
    this.lockKey = lockFile;
    this.holder = null;
    this.waited = waited;
  }

  /**
   * Returns the exception for a local lock file, naming its holder as the lock file describes it
   * ({@code pid 4242 on host h since ...; started ...}); {@link #holder()} is empty.
   *
   * @param heldBy the holder's description, or null when the lock file names none
   */
  static LockTimeoutException ofLockFile(String lockFile, @Nullable String heldBy, Duration waited) {
    return new LockTimeoutException(lockFile, waited, heldBy == null ? "an unknown holder" : heldBy);
  }

  /** {@return the lock's key or path} */
  public String lockKey() {
    return lockKey;
  }

  /** {@return the holder seen last, if known} */
  public Optional<LockInfo> holder() {
    return Optional.ofNullable(holder);
  }

  /** {@return how long the caller waited} */
  public Duration waited() {
    return waited;
  }
}
