package dev.tierlock;

import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.ObjectKey;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The datastore global lock: a lease shared by every checkout of a datastore, which a {@link
 * Tierlock} builds ({@link Tierlock#globalLock()}). A holder keeps its lease alive by heartbeats; a
 * holder that stops heartbeating past the lease's ttl is stale and may be taken over. A lease is
 * never proof of exclusive access on its own: writes to shared state are also conditional on the
 * version read (the storage-side fence).
 *
 * <p>The lock is one object at {@link #globalKey} holding a JSON {@link LockInfo}. Acquiring is a
 * create-only write; a holder renews its lease by a heartbeat every ttl/3, written conditional on
 * the version it last wrote; a stale holder (its record's version seen unchanged for longer than its
 * ttl by the waiter's own monotonic clock; the record's timestamp, written by the holder's clock, is
 * never read against the waiter's) is taken over by a write conditional on the stale version, and so
 * is at once a holder in this process's own boot and pid namespace whose process is gone ({@link
 * HostProcesses#isGone}); release is a delete conditional on the held version. No
 * operation deletes or overwrites the lock unconditionally, so a stalled holder never removes its
 * successor's lock.
 *
 * <p>Callers of one JVM on one store and one {@link LockIdentity} queue in memory, first come first
 * served, and a held lease passes from one to the next without a remote call for a bounded number
 * of times and time; {@link #tryAcquire()} never queues. Waits between attempts are drawn with full
 * jitter under a cap that starts near the store's round trip; a waiter that has waited past its
 * bound reserves the next turn in {@code <key>.reservation}, and contended peers hold back for it.
 * Acquiring retries an unavailable store and a lost answer within the maximum wait ({@link
 * LockOptions}); any other datastore failure propagates at once. A thread interrupted while waiting
 * gets {@link InterruptedOperationException}.
 *
 * <pre>{@code
 * try (DistributedLock.Held held = tierlock.globalLock().acquire()) {
 *   ...
 * }
 * }</pre>
 *
 * <p>Implementations are thread-safe.
 */
public interface DistributedLock {

  /** The name of the datastore global lock's object, inside the namespace. */
  String GLOBAL_LOCK_NAME = ".datastore.lock";

  /**
   * {@return the key of the datastore global lock: {@code .datastore.lock}, or {@code
   * <namespace>/.datastore.lock}, inside the namespace so that credentials scoped to the namespace
   * can take it}
   *
   * @param namespace the namespace the lock guards
   */
  static ObjectKey globalKey(Namespace namespace) {
    return namespace.rootKey(GLOBAL_LOCK_NAME);
  }

  /** {@return a description of the lock for messages: the datastore and the lock's key} */
  String describe();

  /**
   * Acquires the lock, waiting with backoff up to the configured maximum wait and taking over a
   * stale holder's lease.
   *
   * @return the held lease, heartbeating until released
   * @throws LockTimeoutException if the lock was not acquired within the maximum wait; names the
   *     key, the holder last seen and the time waited
   * @throws IllegalStateException if this thread holds a local lock that is taken after this one
   * @throws InterruptedOperationException if the thread was interrupted while waiting
   * @throws DatastoreException if the datastore fails in a way retrying within the wait cannot fix
   */
  Held acquire();

  /**
   * Tries once to acquire the lock (taking over a stale holder), without waiting.
   *
   * @return the held lease, or empty when a live holder has it, another caller in this JVM has or
   *     awaits it, or another waiter has reserved the next turn
   * @throws IllegalStateException if this thread holds a local lock that is taken after this one
   * @throws DatastoreException if the datastore fails
   */
  Optional<Held> tryAcquire();

  /**
   * Reads who holds the lock now.
   *
   * @return the current holder's information, or empty when the lock is free
   * @throws LockUnreadableException if the lock object holds no valid record
   * @throws DatastoreException if the datastore fails
   */
  Optional<LockInfo> inspect();

  /**
   * Releases the lock whoever holds it, but only if its nonce is {@code nonce}: an operator's
   * break-glass for a holder known to be dead. Conditional on the version read, so it never
   * deletes a lock that a new holder acquired in between.
   *
   * @param nonce the nonce of the holding to release, as {@link LockInfo#nonce()} shows it
   * @return whether a lock with that nonce was released
   * @throws IllegalArgumentException if {@code nonce} is blank
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
    try (Held held = acquire()) {
      return action.get();
    }
  }

  /**
   * One holding of a {@link DistributedLock}. Closing it releases the lock (idempotent), or hands it
   * over to the next caller queued in this JVM: then this handle reads as released while the next
   * caller's, a handle of its own, holds. A JVM that shuts down in order (SIGTERM, SIGINT, {@code
   * System.exit}) releases the leases it still holds from a shutdown hook, each by its own
   * conditional delete, waiting at most 5 s in all; a JVM killed outright leaves its lease to
   * expire after its ttl. Thread-safe.
   */
  interface Held extends AutoCloseable {

    /**
     * {@return the information written when this lease was acquired (its nonce is the fencing id);
     * a lease handed over in this JVM carries the record of the remote holding it continues}
     */
    LockInfo info();

    /**
     * {@return whether this lease is still held: false once released, once a heartbeat found that
     * the lock is gone or held under another nonce (the lease was lost, for instance after a stall
     * past its ttl), or once its last confirmed refresh is a ttl old (its heartbeats stopped, so a
     * peer may take it over)}
     */
    boolean isHeld();

    /**
     * Releases the lock if this lease still holds it, by a delete conditional on the version this
     * lease wrote (or hands it to the next caller queued in this JVM); never deletes or hands over
     * a successor's lock. Idempotent. A release that fails leaves the lock to expire and does not
     * throw.
     */
    void release();

    /** Same as {@link #release()}. */
    @Override
    default void close() {
      release();
    }
  }
}
