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
 * @param ttl how long the lease stays fresh without a heartbeat (see {@link #isStaleAt} for how
 *     waiters judge it)
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

  /**
   * Returns whether the lease is stale at {@code now} by its own timestamp: not refreshed within
   * twice its ttl, so any waiter takes it over at first sight. Twice, because {@code acquiredAt} was
   * written by the holder's clock and {@code now} is read from another: a live holder (refreshed
   * every ttl/3) is never judged stale unless the clocks differ by more than about 5/3 ttl. A record
   * younger than that may still be stale: a waiter that has itself seen the lock's version unchanged
   * for longer than the ttl (measured on its own clock alone) takes it over too.
   *
   * @param now the instant to judge at, from the caller's clock; not null
   * @return whether {@code now} is more than {@code 2 × ttl} after {@code acquiredAt}
   */
  public boolean isStaleAt(Instant now) {
    return now.isAfter(acquiredAt.plus(ttl.multipliedBy(2)));
  }

  /** Returns the same holding with {@code acquiredAt} moved to {@code now} (a heartbeat). */
  public LockInfo refreshedAt(Instant now) {
    return new LockInfo(holder, hostname, pid, now, ttl, nonce);
  }
}
