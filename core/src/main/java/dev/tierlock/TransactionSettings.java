package dev.tierlock;

import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Everything a {@link LockfileTransaction} runs with. Immutable.
 *
 * @param store the checkout's shared lockfile in the datastore
 * @param pending the checkout's pending-change record
 * @param globalLock the datastore global lock
 * @param pulledExtensions the checkout's pulled-extensions lock
 * @param checkoutLock the checkout's transaction lock, held for a whole run
 * @param clock measures the deadline
 * @param sleeper waits between publish attempts
 * @param random jitter of the waits; drawn from under its own monitor
 * @param policy what a publish failure does
 * @param deadline how long a run may take from its start before it stops retrying
 * @param maxAttempts the most publish attempts of one run
 * @param firstBackoff the first wait between attempts (doubling, with jitter)
 * @param maxBackoff the longest wait between attempts
 * @param commitIds a fresh commit id per lockfile write
 * @param mode how runs exclude other writers
 * @param grouped whether runs queued on this checkout are merged into one publish
 * @param trustAfter in {@link CommitMode#AUTO}, the consecutive Tierlock versions of the lockfile
 *     after which runs take no lease again
 * @param yieldAfter in the modes without the lease, the races one commit loses in a row before it
 *     publishes under the lease
 * @param queueing told, on the caller's thread, when a run queues behind the batch of runs on this
 *     checkout ({@link Environment#queueing()})
 */
record TransactionSettings(
    LockfileStore store,
    PendingRecord pending,
    DistributedLock globalLock,
    PulledExtensionsLock pulledExtensions,
    CheckoutLock checkoutLock,
    Clock clock,
    Sleeper sleeper,
    RandomGenerator random,
    PublishFailurePolicy policy,
    Duration deadline,
    int maxAttempts,
    Duration firstBackoff,
    Duration maxBackoff,
    Supplier<String> commitIds,
    CommitMode mode,
    boolean grouped,
    int trustAfter,
    int yieldAfter,
    Consumer<String> queueing) {

  /** The default deadline of a run, lock wait included. */
  static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(120);

  /** The default most publish attempts of a run. */
  static final int DEFAULT_MAX_ATTEMPTS = 12;

  /**
   * The default first wait between attempts after a failure (GCS allows about one write per second
   * per object). A write refused for a newer lockfile is retried at once when locked, and after a
   * wait with full jitter near the round trip when optimistic.
   */
  static final Duration DEFAULT_FIRST_BACKOFF = Duration.ofSeconds(1);

  /** The default longest wait between attempts. */
  static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(8);

  /**
   * The default races a commit without the lease loses in a row before it publishes under the
   * lease instead: a writer that keeps losing takes a turn.
   */
  static final int DEFAULT_YIELD_AFTER = 3;

  /**
   * Validates the values.
   *
   * @throws IllegalArgumentException if a duration is not positive, or {@code maxAttempts}, {@code
   *     trustAfter} or {@code yieldAfter} is below 1
   */
  TransactionSettings {
    if (deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("Cannot use transaction deadline " + deadline + ": it must be positive");
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("Cannot use " + maxAttempts + " publish attempts: at least 1");
    }
    if (firstBackoff.isNegative() || firstBackoff.isZero() || firstBackoff.compareTo(maxBackoff) > 0) {
      throw new IllegalArgumentException("Cannot use backoff " + firstBackoff + " up to " + maxBackoff);
    }
    if (trustAfter < 1 || yieldAfter < 1) {
      throw new IllegalArgumentException("Cannot trust the lockfile after " + trustAfter + " versions or yield after "
          + yieldAfter + " races: at least 1 each");
    }
  }

  /** Returns whether runs start without the lease ({@link CommitMode#OPTIMISTIC}, {@link CommitMode#AUTO}). */
  boolean lockless() {
    return mode != CommitMode.LOCKED;
  }

  /**
   * Returns a fresh commit id.
   *
   * @throws IllegalArgumentException if the source gave something that is not a commit id
   */
  String nextCommitId() {
    String id = commitIds.get();
    if (!LockfileHead.isCommitId(id)) {
      throw new IllegalArgumentException("Cannot use commit id \"" + id + "\": letters, digits and -, 1 to 64 characters");
    }
    return id;
  }

  /** Returns a uniform draw in [0, 1) for jitter. */
  double nextUnit() {
    synchronized (random) {
      return random.nextDouble();
    }
  }
}
