package dev.tierlock;

import dev.tierlock.spi.DatastoreException;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * A lease lock shared by every checkout of a datastore (the datastore global lock). A holder keeps
 * its lease alive by heartbeats; a holder that stops heartbeating past the lease's ttl is stale and
 * may be taken over. A lease is never proof of exclusive access on its own: writes to shared state
 * are also conditional on the version read (the storage-side fence).
 *
 * <p>Implementations are thread-safe.
 */
public interface DistributedLock {

  /** {@return a description of the lock for messages: the datastore and the lock's key} */
  String describe();

  /**
   * Acquires the lock, waiting with backoff up to the configured maximum wait and taking over a
   * stale holder's lease.
   *
   * @return the lease, heartbeating until released
   * @throws LockTimeoutException if the lock was not acquired within the maximum wait
   * @throws DatastoreException if the datastore fails in a way retrying within the wait cannot fix
   */
  LockLease acquire();

  /**
   * Tries once to acquire the lock (taking over a stale holder), without waiting.
   *
   * @return the lease, or empty when a live holder has it (or, for a lease lock, another caller in
   *     this JVM has or awaits it, or another waiter has reserved the next turn)
   * @throws DatastoreException if the datastore fails
   */
  Optional<LockLease> tryAcquire();

  /** {@return the current holder's information, or empty when the lock is free} */
  Optional<LockInfo> inspect();

  /**
   * Releases the lock whoever holds it, but only if its nonce is {@code nonce}: an operator's
   * break-glass for a holder known to be dead. Conditional on the version read, so it never
   * deletes a lock that a new holder acquired in between.
   *
   * @param nonce the nonce of the holding to release, as {@link LockInfo#nonce()} shows it
   * @return whether a lock with that nonce was released
   */
  boolean forceRelease(String nonce);

  /**
   * Runs {@code action} holding the lock, and releases it afterwards whatever happens.
   *
   * @param <T> the type of what {@code action} returns
   * @param action what runs holding the lock
   * @return what {@code action} returned
   * @throws LockTimeoutException if the lock was not acquired within the maximum wait
   */
  default <T> T withLock(Supplier<T> action) {
    try (LockLease lease = acquire()) {
      return action.get();
    }
  }
}
