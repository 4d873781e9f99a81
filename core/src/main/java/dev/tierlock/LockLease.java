package dev.tierlock;

/**
 * One holding of a {@link DistributedLock}. Closing it releases the lock (idempotent). A JVM that
 * shuts down in order (SIGTERM, SIGINT, {@code System.exit}) releases the leases it still holds
 * from a shutdown hook, each by its own conditional delete, waiting at most 5 s in all; a JVM
 * killed outright leaves its lease to expire after its ttl. Thread-safe.
 */
public interface LockLease extends AutoCloseable {

  /** Returns the information written when this lease was acquired (its nonce is the fencing id). */
  LockInfo info();

  /**
   * Returns whether this lease is still held: false once released, once a heartbeat found that
   * the lock is gone or held under another nonce (the lease was lost, for instance after a stall
   * past its ttl), or once its last confirmed refresh is a ttl old (its heartbeats stopped, so a
   * peer may take it over).
   */
  boolean isHeld();

  /**
   * Releases the lock if this lease still holds it, by a delete conditional on the version this
   * lease wrote; never deletes a successor's lock. Idempotent. A release that fails leaves the lock
   * to expire and does not throw.
   */
  void release();

  /** Same as {@link #release()}. */
  @Override
  default void close() {
    release();
  }
}
