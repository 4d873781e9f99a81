package dev.tierlock;

import java.time.Duration;
import java.time.Instant;

/**
 * What a lock's holder writes into the lock: who holds it and until when it is fresh. Serialised
 * as a JSON object {@code {holder, hostname, pid, acquiredAt, ttlMs, nonce}} ({@code acquiredAt}
 * ISO-8601, refreshed by every heartbeat).
 *
 * @param holder who holds it, {@code user@host}
 * @param hostname the holder's host name
 * @param pid the holder's process id
 * @param acquiredAt when the lock was acquired or last heartbeat
 * @param ttl how long after {@code acquiredAt} the lease stays fresh
 * @param nonce unique id of this holding, used to release or force-release it
 */
public record LockInfo(String holder, String hostname, long pid, Instant acquiredAt, Duration ttl, String nonce) {

  /**
   * Validates the values.
   *
   * @throws IllegalArgumentException if the nonce is blank or the ttl is not positive
   */
  public LockInfo {
    if (nonce.isBlank()) {
      throw new IllegalArgumentException("Cannot describe lock holder " + holder + ": the nonce is blank");
    }
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("Cannot describe lock holder " + holder + ": ttl must be positive, got " + ttl);
    }
  }

  /** Returns whether the lease is stale at {@code now}: not refreshed within its ttl. */
  public boolean isStaleAt(Instant now) {
    return now.isAfter(acquiredAt.plus(ttl));
  }

  /** Returns the same holding with {@code acquiredAt} moved to {@code now} (a heartbeat). */
  public LockInfo refreshedAt(Instant now) {
    return new LockInfo(holder, hostname, pid, now, ttl, nonce);
  }
}
