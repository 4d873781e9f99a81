package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.internal.TurnQueue;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.ObjectKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The in-JVM queue of one {@link Lease}, in front of its remote lock.
 *
 * <p><b>One queue per lease in this JVM.</b> Every lease of this class loader on one store (equal
 * {@link Datastore#identity()}), one key and one {@link LockIdentity} (the records it writes)
 * queues its callers in memory, first come first served: only the caller whose turn it is works on
 * the remote lock, the others wait without a call. When a lease is released while another caller is
 * queued and its remote holding is still held ({@link DistributedLock.Held#isHeld()}), the holding
 * is handed over: the next caller gets a lease object of its own on the same record (the same
 * nonce), with no remote call, lent its own lock's store for the heartbeats and the release. A
 * holding is handed over at most {@link Lease.HandoverBudget#DEFAULT} times in a row and only while
 * it has been held for less than its time since its remote acquisition ({@link
 * Lease.HandoverBudget}); after that it is released remotely and the next caller acquires remotely,
 * as a contended acquirer ({@link LeaseReservation}), so that other processes get their turn.
 * Closing a lease twice, or closing a lease whose turn has passed, never releases the next
 * caller's. A caller that gives up (its maximum wait, an interrupt) leaves the queue and those
 * behind keep their places. Queued callers re-read their own clocks whenever the turn changes hands
 * and whenever the caller whose turn it is retries, and at least once per maximum retry interval of
 * real time. A lease lost in this JVM (a stall, a force-release) keeps its turn until it is closed.
 * {@link DistributedLock#tryAcquire()} never queues: it returns empty when another caller in this
 * JVM has or awaits the turn.
 *
 * <p>A turn is the right to hold the lease, taken in the one fair queue of Tierlock's locks ({@link
 * TurnQueue}): granted to one waiter at a time, in arrival order. A granted turn comes with a holding
 * handed over by the turn before ({@link Grant.Handed}), with word that the turn before released
 * its holding remotely although this waiter was queued ({@link Grant.Yielded}), or with nothing;
 * without a holding, its waiter acquires the remote lock itself. The line adds to the queue what the
 * turn's owner holds and how often it was handed over, guarded by the line's monitor; lines are kept
 * in one registry per class loader, {@link #join}, and a line is dropped when its last user leaves.
 * Thread-safe.
 */
final class LeaseLine {

  /**
   * What makes two leases one line: the store, the lock's key and who the records name (a
   * handed-over holding keeps its record, so it only passes between leases that write the same).
   *
   * @param store the store's identity
   * @param lock the lock's key
   * @param holder who the records name
   */
  record Key(DatastoreIdentity store, ObjectKey lock, LockIdentity holder) {}

  /** What a turn comes with from the turn before. */
  sealed interface Grant {

    /**
     * The turn before handed its remote holding over: the waiter continues it.
     *
     * @param holding the holding, still held when it was handed over
     */
    record Handed(LeaseHolding holding) implements Grant {}

    /**
     * The turn before released its holding remotely although this waiter was queued (its handover
     * budget was spent): the waiter acquires as a contended acquirer, so that a waiter of another
     * process that reserved the next turn gets it.
     */
    record Yielded() implements Grant {}
  }

  private static final Map<Key, LeaseLine> LINES = new HashMap<>();

  private final Key key;
  private final TurnQueue<Grant> turns = new TurnQueue<>();
  /** Guarded by {@link #LINES}. */
  private int users;
  private @Nullable LeaseHolding holding;
  private int handovers;
  private boolean yieldNext;
  private volatile @Nullable LockInfo lastSeen;

  private LeaseLine(Key key) {
    this.key = key;
  }

  /** Returns the line of {@code key}, counting the caller as one of its users until {@link #leave()}. */
  static LeaseLine join(Key key) {
    synchronized (LINES) {
      LeaseLine line = LINES.computeIfAbsent(key, LeaseLine::new);
      line.users++;
      return line;
    }
  }

  /** Ends one use begun by {@link #join}; the last user drops the line. */
  void leave() {
    synchronized (LINES) {
      if (--users == 0) {
        LINES.remove(key, this);
      }
    }
  }

  /** Takes the turn if nobody has it and nobody is queued; otherwise returns null at once. */
  TurnQueue.@Nullable Turn<Grant> tryTake() {
    return turns.tryTake();
  }

  /**
   * Queues and waits until the turn is granted, or until {@code deadline} on {@code clock}. A turn
   * granted while the waiter was being interrupted is kept (the thread's interrupt flag is set
   * again), so that no grant is ever lost.
   *
   * @param slice the longest the waiter goes without re-reading its clock
   * @param onQueued run on the waiting thread, once, under the queue's lock, if it has to queue behind another
   * @return the granted turn, or null when the deadline passed first (the waiter left the queue)
   * @throws InterruptedException if interrupted while waiting (the waiter left the queue)
   */
  TurnQueue.@Nullable Turn<Grant> take(Clock clock, Instant deadline, Duration slice, Runnable onQueued)
      throws InterruptedException {
    return turns.take(clock, deadline, slice, onQueued);
  }

  /** Wakes the queued waiters to re-read their clocks: the owner's remote wait moved on. */
  void poke() {
    turns.poke();
  }

  /** Records that {@code turn}, the owner, now holds {@code held}, acquired remotely. */
  synchronized void hold(TurnQueue.Turn<Grant> turn, LeaseHolding held) {
    if (turns.isCurrent(turn)) {
      holding = held;
      handovers = 0;
    }
  }

  /**
   * Takes back the holding handed to {@code turn} (found lost when its waiter woke): the owner
   * now releases it and acquires remotely.
   */
  synchronized void drop(TurnQueue.Turn<Grant> turn) {
    if (turns.isCurrent(turn)) {
      holding = null;
      handovers = 0;
    }
  }

  /**
   * Ends {@code turn}: hands its holding to the next waiter when one is queued, the holding is still
   * held and its handover budget allows; otherwise detaches the holding for the caller to release
   * remotely (the turn stays the owner's until {@link #end}), or, without a holding, passes the
   * turn on at once. A turn that is not the owner changes nothing.
   *
   * @return the holding to release remotely, then call {@link #end}; null when nothing is left to do
   */
  synchronized @Nullable LeaseHolding handOverOrDetach(TurnQueue.Turn<Grant> turn) {
    if (!turns.isCurrent(turn)) {
      return null;
    }
    LeaseHolding held = holding;
    if (held != null && turns.queued() > 0 && held.isHeld() && held.mayHandOver(handovers)
        && turns.handOver(turn, new Grant.Handed(held))) {
      handovers++;
      return null;
    }
    holding = null;
    handovers = 0;
    if (held == null) {
      passOn(turn);
      return null;
    }
    yieldNext = turns.queued() > 0;
    return held;
  }

  /** Ends {@code turn}, which holds nothing (any holding released), and grants the next waiter. */
  synchronized void end(TurnQueue.Turn<Grant> turn) {
    if (turns.isCurrent(turn)) {
      holding = null;
      handovers = 0;
      passOn(turn);
    }
  }

  /** Returns the holder to name when a queued waiter gives up: the holding's record, else the remote holder last seen. */
  synchronized @Nullable LockInfo holderToName() {
    LeaseHolding held = holding;
    return held != null ? held.info() : lastSeen;
  }

  /** Records the remote holder the owner's attempts last saw. */
  void saw(@Nullable LockInfo holder) {
    if (holder != null) {
      lastSeen = holder;
    }
  }

  private void passOn(TurnQueue.Turn<Grant> turn) {
    turns.end(turn, yieldNext ? new Grant.Yielded() : null);
    yieldNext = false;
  }

  @Override
  public String toString() {
    return "LeaseLine[" + key + "]";
  }
}
