package dev.tierlock.testkit;

import dev.tierlock.Sleeper;
import dev.tierlock.spi.ObjectKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The fault controls of one {@link FaultyDatastore} (or {@link FakeRemote}). Thread-safe; every
 * one-shot fault and hook is consumed by the calls in the order they reach it.
 *
 * <p>Each call of the datastore goes through these steps, in this order:
 *
 * <ol>
 *   <li>{@link #offline()}: the call fails at once as {@code FAULT:OFFLINE}, consuming nothing;
 *   <li>{@link #latency}: the call sleeps through the injected {@link Sleeper}; a latency above the
 *       call timeout fails it as {@link Fault#TIMEOUT_BEFORE_APPLY};
 *   <li>{@link #beforeNext}: the earliest registered matching hook is removed and run;
 *   <li>{@link #failNext}: the earliest registered matching one-shot fault is consumed and decides
 *       the outcome;
 *   <li>otherwise the call reaches the wrapped store ({@link #corruptNextRead} and {@link
 *       #breakNextStream} then alter what it returns);
 *   <li>{@link #afterNext}: once the wrapped store has answered (or a {@link
 *       Fault#LOSE_RESPONSE} applied the call), the earliest registered matching hook is removed
 *       and run, before the answer reaches the caller.
 * </ol>
 *
 * <p>A key predicate never matches a {@link DatastoreOperation#LIST} call (a listing has a prefix,
 * not a key); the overloads without a predicate match every call of the operation.
 *
 * <p>Apart from the steps above, {@link #nonAtomicPreconditions} changes what the wrapped store's
 * conditional writes and deletes do, as a store whose preconditions are not atomic would.
 */
public final class Faults {

  /** The preconditions that {@link #nonAtomicPreconditions} can make non-atomic. */
  public enum Precondition {
    /** Create-only writes ({@link dev.tierlock.spi.WriteCondition#mustNotExist()}). */
    CREATE_ONLY,
    /** Writes conditional on a version ({@link dev.tierlock.spi.WriteCondition#mustMatch}). */
    COMPARE_AND_SWAP,
    /** Deletes conditional on a version. */
    CONDITIONAL_DELETE
  }

  private final List<FaultRule> faults = new ArrayList<>();
  private final List<HookRule> hooks = new ArrayList<>();
  private final List<HookRule> afterHooks = new ArrayList<>();
  private final List<StreamRule> streamBreaks = new ArrayList<>();
  private final List<Predicate<ObjectKey>> corruptions = new ArrayList<>();
  private @Nullable Latency latency;
  private @Nullable RaceWindows raceWindows;
  private boolean offline;

  Faults() {}

  /**
   * Makes the next {@code times} calls of {@code operation} fail with {@code fault}.
   *
   * @param operation the operation whose calls fail
   * @param times how many calls fail, positive
   * @param fault how they fail
   * @return this
   * @throws IllegalArgumentException if {@code times} is not positive
   */
  public Faults failNext(DatastoreOperation operation, int times, Fault fault) {
    return add(operation, null, times, fault);
  }

  /**
   * Makes the next {@code times} calls of {@code operation} whose key matches {@code which} fail
   * with {@code fault}; other calls pass. Never matches a listing.
   *
   * @param operation the operation whose calls fail
   * @param which selects the calls by key
   * @param times how many calls fail, positive
   * @param fault how they fail
   * @return this
   * @throws IllegalArgumentException if {@code times} is not positive
   */
  public Faults failNext(DatastoreOperation operation, Predicate<ObjectKey> which, int times, Fault fault) {
    return add(operation, which, times, fault);
  }

  /**
   * Makes every call fail as unavailable ({@code FAULT:OFFLINE}) until {@link #online()}. Returns this.
   *
   * @return this
   */
  public synchronized Faults offline() {
    offline = true;
    return this;
  }

  /**
   * Ends {@link #offline()}; pending one-shot faults and hooks stay. Returns this.
   *
   * @return this
   */
  public synchronized Faults online() {
    offline = false;
    return this;
  }

  /**
   * Registers a one-shot hook: the next call of {@code operation} whose key matches {@code which}
   * runs {@code hook} on the calling thread just before the call goes on (after latency, before
   * one-shot faults). The hook is removed before it runs, so calls it makes itself through the same
   * store do not trigger it again; it may advance a {@link TestClock} and let a peer act, which is
   * how a test pauses a lock holder past its ttl. An exception thrown by the hook propagates out of
   * the call, which then does not reach the store. Hooks for the same call fire one per call, in
   * registration order. {@link FakeRemoteExtension} fails a test that leaves a hook unconsumed.
   *
   * @param operation the operation whose next call runs the hook
   * @param which selects the calls by key
   * @param hook what runs just before the call goes on
   * @return this
   */
  public synchronized Faults beforeNext(DatastoreOperation operation, Predicate<ObjectKey> which, Runnable hook) {
    hooks.add(new HookRule(operation, which, hook));
    return this;
  }

  /**
   * Registers a one-shot hook that runs after a call has had its effect: the next call of {@code
   * operation} whose key matches {@code which} and reaches the wrapped store (a call refused before,
   * by {@link #offline()}, latency, a {@link #beforeNext} hook or an injected fault other than
   * {@link Fault#LOSE_RESPONSE}, does not consume it) runs {@code hook} on the calling thread once
   * the store has answered and the call is logged, before the answer (or the lost answer) reaches
   * the caller. An exception thrown by the hook replaces the answer: the call landed, and its caller
   * never learns it, which is how a test plays a process that dies right after a write, or changes
   * local state between a write and what the caller does next. The hook is removed before it runs;
   * hooks for the same call fire one per call, in registration order. {@link FakeRemoteExtension}
   * fails a test that leaves one unconsumed.
   *
   * @param operation the operation whose next call runs the hook
   * @param which selects the calls by key
   * @param hook what runs once the store has answered
   * @return this
   */
  public synchronized Faults afterNext(DatastoreOperation operation, Predicate<ObjectKey> which, Runnable hook) {
    afterHooks.add(new HookRule(operation, which, hook));
    return this;
  }

  /**
   * Makes every later call first sleep {@code perCall} through {@code sleeper} (a {@link
   * TestClock#sleeper()} advances a clock instead of sleeping); when {@code perCall} is longer than
   * {@code callTimeout} the call then fails as {@link Fault#TIMEOUT_BEFORE_APPLY}. Replaces any
   * earlier latency.
   *
   * @param perCall how long each call sleeps first, not negative
   * @param sleeper what spends the sleeps
   * @param callTimeout the deadline a call fails past, not negative
   * @return this
   * @throws IllegalArgumentException if a duration is negative
   */
  public synchronized Faults latency(Duration perCall, Sleeper sleeper, Duration callTimeout) {
    if (perCall.isNegative() || callTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "Cannot inject latency " + perCall + " with timeout " + callTimeout + ": durations are never negative");
    }
    latency = new Latency(perCall, sleeper, callTimeout);
    return this;
  }

  /**
   * Makes the next download ({@link DatastoreOperation#OPEN_STREAM}) of a key matching {@code
   * which} open normally and then break: its stream yields the first {@code afterBytes} bytes and
   * then throws {@link java.io.IOException}, as a connection reset midway would.
   *
   * @param which selects the download by key
   * @param afterBytes how many bytes the stream yields before it breaks, not negative
   * @return this
   * @throws IllegalArgumentException if {@code afterBytes} is negative
   */
  public synchronized Faults breakNextStream(Predicate<ObjectKey> which, long afterBytes) {
    if (afterBytes < 0) {
      throw new IllegalArgumentException("Cannot break a stream after " + afterBytes + " bytes: the count is never negative");
    }
    streamBreaks.add(new StreamRule(which, afterBytes));
    return this;
  }

  /**
   * Makes the next {@link DatastoreOperation#READ} or {@link DatastoreOperation#OPEN_STREAM} of a
   * key matching {@code which} yield the object's bytes with the last byte's bits flipped (same
   * length, same version), as a corrupting proxy would. A read of an empty object neither uses nor
   * consumes it.
   *
   * @param which selects the read by key
   * @return this
   */
  public synchronized Faults corruptNextRead(Predicate<ObjectKey> which) {
    corruptions.add(which);
    return this;
  }

  /**
   * Makes the preconditions of {@code kinds} non-atomic, as a store that checks a request's
   * precondition and then applies its change in a second step does (S3Mock 5.2.0 lets 2 to 8 of 8
   * concurrent create-only writers win in a quarter to a half of rounds): of racers that all send a
   * call conditioned on one state of a key, {@code winners} win with probability {@code
   * probability}, and exactly one otherwise.
   *
   * <p>How: when a write or delete conditional on a key's state (absent, for create-only; a version
   * otherwise) changes the key, one number is drawn (from a generator of the key's own, seeded from
   * {@code random} when the key first changes, so that a seeded run repeats whichever racer lands
   * first); with probability {@code
   * probability} the next {@code winners - 1} calls of {@code kinds} conditioned on that same, now
   * replaced, state land too, as if their check had run before the first one's change: a write as
   * if unconditional, a delete deleting whatever is there and answering {@link
   * dev.tierlock.spi.DeleteResult#DELETED}. Those calls are logged as {@code FAULT:NON_ATOMIC}. A
   * read, stat or download of the key closes its window, and so does the next call of the thread
   * whose change opened it (that call was sent after the change was answered): a caller's own calls
   * in sequence never meet the fault, only racers on other threads do (n racers see {@code
   * min(winners, n)} winners). Every conditional call is then decided and sent one at a time. Until {@link #clear()}; replaces
   * an earlier call's setting. While it is set, the {@link FaultyDatastore} no longer passes
   * preconditions through, so Tierlock checks it on its own.
   *
   * @param kinds the preconditions that break, at least one
   * @param winners how many racers win when they break, at least 2
   * @param probability how often they break, from 0 to 1
   * @param random the source of the draws (seeded, for a result that repeats)
   * @return this
   * @throws IllegalArgumentException if {@code kinds} is empty, {@code winners} is under 2 or
   *     {@code probability} is outside [0, 1]
   */
  public synchronized Faults nonAtomicPreconditions(java.util.Set<Precondition> kinds, int winners, double probability,
      java.util.random.RandomGenerator random) {
    if (kinds.isEmpty() || winners < 2 || !(probability >= 0 && probability <= 1)) {
      throw new IllegalArgumentException("Cannot make preconditions " + kinds + " non-atomic with " + winners
          + " winners at probability " + probability + ": at least one kind, 2 winners, and a probability from 0 to 1");
    }
    raceWindows = new RaceWindows(kinds, winners, probability, random);
    return this;
  }

  /** Removes every pending fault, hook, stream break, corruption and latency, and goes online. */
  public synchronized void clear() {
    faults.clear();
    hooks.clear();
    afterHooks.clear();
    streamBreaks.clear();
    corruptions.clear();
    latency = null;
    raceWindows = null;
    offline = false;
  }

  /** {@return how many {@link #beforeNext} and {@link #afterNext} hooks have not run yet} */
  public synchronized int pendingHooks() {
    return hooks.size() + afterHooks.size();
  }

  /** {@return a description of every one-shot fault, hook, stream break and corruption not consumed yet} */
  public synchronized List<String> pending() {
    List<String> out = new ArrayList<>();
    faults.forEach(f -> out.add("failNext(" + f.operation + ", " + f.remaining + " x " + f.fault + ")"));
    hooks.forEach(h -> out.add("beforeNext(" + h.operation + ")"));
    afterHooks.forEach(h -> out.add("afterNext(" + h.operation + ")"));
    streamBreaks.forEach(s -> out.add("breakNextStream(after " + s.afterBytes + " bytes)"));
    corruptions.forEach(c -> out.add("corruptNextRead()"));
    return List.copyOf(out);
  }

  private synchronized Faults add(
      DatastoreOperation operation, @Nullable Predicate<ObjectKey> which, int times, Fault fault) {
    if (times < 1) {
      throw new IllegalArgumentException(
          "Cannot inject fault " + fault + " into " + operation + ": times must be positive, got " + times);
    }
    faults.add(new FaultRule(operation, which, fault, times));
    return this;
  }

  /** Returns the non-atomic preconditions in force, if any. */
  synchronized Optional<RaceWindows> raceWindows() {
    return Optional.ofNullable(raceWindows);
  }

  synchronized boolean isOffline() {
    return offline;
  }

  synchronized Optional<Latency> currentLatency() {
    return Optional.ofNullable(latency);
  }

  synchronized Optional<Runnable> takeHook(DatastoreOperation operation, @Nullable ObjectKey key) {
    return take(hooks, operation, key);
  }

  synchronized Optional<Runnable> takeAfterHook(DatastoreOperation operation, @Nullable ObjectKey key) {
    return take(afterHooks, operation, key);
  }

  private static Optional<Runnable> take(List<HookRule> rules, DatastoreOperation operation, @Nullable ObjectKey key) {
    for (Iterator<HookRule> it = rules.iterator(); it.hasNext(); ) {
      HookRule rule = it.next();
      if (rule.operation == operation && key != null && rule.which.test(key)) {
        it.remove();
        return Optional.of(rule.hook);
      }
    }
    return Optional.empty();
  }

  synchronized Optional<Fault> takeFault(DatastoreOperation operation, @Nullable ObjectKey key) {
    for (Iterator<FaultRule> it = faults.iterator(); it.hasNext(); ) {
      FaultRule rule = it.next();
      boolean matches = rule.operation == operation && (rule.which == null || (key != null && rule.which.test(key)));
      if (matches) {
        if (--rule.remaining == 0) {
          it.remove();
        }
        return Optional.of(rule.fault);
      }
    }
    return Optional.empty();
  }

  synchronized long takeStreamBreak(ObjectKey key) {
    for (Iterator<StreamRule> it = streamBreaks.iterator(); it.hasNext(); ) {
      StreamRule rule = it.next();
      if (rule.which.test(key)) {
        it.remove();
        return rule.afterBytes;
      }
    }
    return -1;
  }

  synchronized boolean takeCorruption(ObjectKey key) {
    for (Iterator<Predicate<ObjectKey>> it = corruptions.iterator(); it.hasNext(); ) {
      if (it.next().test(key)) {
        it.remove();
        return true;
      }
    }
    return false;
  }

  /** An injected latency. */
  record Latency(Duration perCall, Sleeper sleeper, Duration callTimeout) {
    boolean timesOut() {
      return perCall.compareTo(callTimeout) > 0;
    }
  }

  private static final class FaultRule {
    final DatastoreOperation operation;
    final @Nullable Predicate<ObjectKey> which;
    final Fault fault;
    int remaining;

    FaultRule(DatastoreOperation operation, @Nullable Predicate<ObjectKey> which, Fault fault, int remaining) {
      this.operation = operation;
      this.which = which;
      this.fault = fault;
      this.remaining = remaining;
    }
  }

  private record HookRule(DatastoreOperation operation, Predicate<ObjectKey> which, Runnable hook) {}

  private record StreamRule(Predicate<ObjectKey> which, long afterBytes) {}
}
