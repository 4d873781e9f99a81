package dev.tierlock;

/**
 * One holding of a {@link DistributedLock}. Closing it releases the lock (idempotent); a lease lock
 * may instead hand the lock over to the next caller queued in this JVM ({@link LeaseLocks}), and
 * then this lease reads as released while the next caller's, a lease object of its own, holds. A
 * JVM that
 * shuts down in order (SIGTERM, SIGINT, {@code System.exit}) releases the leases it still holds
 * from a shutdown hook, each by its own conditional delete, waiting at most 5 s in all; a JVM
 * killed outright leaves its lease to expire after its ttl. Thread-safe.
 */
public interface LockLease extends AutoCloseable {

  /** {@return the information written when this lease was acquired (its nonce is the fencing id)} */
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
   * lease wrote (or hands it to the next caller queued in this JVM); never deletes or hands over a
   * successor's lock. Idempotent. A release that fails leaves the lock to expire and does not throw.
   */
  void release();

  /** Same as {@link #release()}. */
  @Override
  default void close() {
    release();
  }
}
