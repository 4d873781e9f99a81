package dev.tierlock;

import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Builds lease locks over any {@link Datastore}: the datastore global lock and any other lock kept
 * as one object.
 *
 * <p>The lock is one object at its key holding a JSON {@link LockInfo}. Acquiring is a create-only
 * write; a holder renews its lease by a heartbeat every ttl/3, written conditional on the version it
 * last wrote; a holder whose record this lock has itself seen stay at one version for longer than
 * its ttl (measured on this lock's clock alone, so clock skew cannot shorten it), or whose record is
 * older than twice its ttl by this lock's clock ({@link LockInfo#isStaleAt}: taken over at first
 * sight, yet a live holder whose clock lags by up to about 5/3 ttl is safe), is stale and is taken
 * over by a write conditional on the stale version; release is a delete conditional on the held
 * version. No operation ever deletes or overwrites a lock unconditionally, so a stalled holder can
 * never remove its successor's lock. A record that cannot be read is treated as held until it has
 * stayed unchanged for longer than this lock's ttl: {@link DistributedLock#inspect()} then throws
 * {@link LockUnreadableException} (code {@code lock_unreadable}) rather than report the lock free,
 * and {@link DistributedLock#forceRelease(String)} cannot match its nonce.
 *
 * <p><b>A dead holder on this host.</b> A record names its holder's process start time when it is
 * known ({@code processStartedAt}), so that host, pid and start time pin one process. A record that
 * names this host ({@link HostProcesses#hostname()}) is taken over at once, by the same write
 * conditional on the version read (two takers never both win), when no process with its pid runs
 * here any more or the one that does started at another time: the pid was reused ({@link
 * HostProcesses#isGone}). A record without a start time (the original tool's, an older Tierlock's,
 * one of an identity that names no process of this host) is judged by its ttl alone: a pid on its
 * own cannot tell a reused or made-up id from the holder, and taking it over early could steal a
 * live lease. A holder on another host is judged by its ttl, as before. The rule trusts that one
 * host name names one process table; where containers share a host name but not their process ids,
 * build the lock with {@link Builder#hostProcesses} whose host name no record carries.
 *
 * <p><b>One queue per lease in this JVM.</b> Every lease lock of this class loader on one store
 * (equal {@link Datastore#identity()}), one key and one {@link LockIdentity} (the records it writes)
 * queues its callers in memory, first come first served: only the caller whose turn it is works on
 * the remote lock, the others wait without a call. When a lease is released while another caller
 * is queued and its remote holding is still held ({@link LockLease#isHeld()}), the holding is
 * handed over: the next caller gets a lease object of its own on the same record (the same nonce),
 * with no remote call, lent its own lock's store for the heartbeats and the release. A holding is
 * handed over at most {@link #DEFAULT_HANDOVERS} times in a row and only while it has been held for
 * less than {@link #DEFAULT_HANDOVER_HELD} since its remote acquisition ({@link
 * Builder#handoverBudget}); after that it is released remotely and the next caller acquires
 * remotely, as a contended acquirer (below), so that other processes get their turn. Closing a
 * lease twice, or closing a lease whose turn has passed, never releases the next caller's. A caller
 * that gives up (its maximum wait, an interrupt) leaves the queue and those behind keep their
 * places. Queued callers re-read their own clocks whenever the turn changes hands and whenever the
 * caller whose turn it is retries, and at least once per maximum retry interval of real time. A
 * lease lost in this JVM (a stall, a force-release) keeps its turn until it is closed. {@link
 * DistributedLock#tryAcquire()} never queues: it returns empty when another caller in this JVM has
 * or awaits the turn.
 *
 * <p><b>Waits between attempts.</b> Each wait is drawn uniformly from [0, cap] (full jitter). The
 * first cap is the duration of the acquisition's first attempt as the lock's clock measured it
 * (near the store's round trip; at least 1 ms, at most the retry interval); each next cap is twice
 * the last, up to the maximum retry interval, while the attempts find one holder; an attempt that
 * finds the lock changed hands (another holder, or none) starts the caps again from the first (a
 * reserver for its first 256 turnovers only), so a
 * waiter behind a stream of short holdings keeps polling near the round trip (and so keeps an even
 * chance against the one just released) instead of backing off to seconds; no wait runs past the
 * maximum wait.
 *
 * <p><b>Bounded waits across processes.</b> An acquirer that met contention (a busy lock, a
 * reservation) within the last two ttls is <em>contended</em>, and before each attempt reads the
 * reservation object {@code <key>.reservation} ({@link DistributedLock#tryAcquire()} too). Another
 * waiter's fresh reservation holds it back: no create on that attempt. An expired or unreadable
 * reservation is deleted, conditional on the version read, and ignored. An acquisition that has
 * waited longer than twice the maximum retry interval (or half its maximum wait, if that is
 * shorter), or has seen the lock change hands 64 times, and then finds the lock busy claims the
 * reservation: a create-only write of its own
 * record (its nonce and ttl). While it waits, the reserver refreshes the reservation every ttl/3
 * (conditional on its version) and waits at most the retry interval between attempts; it deletes
 * the reservation (conditionally) once it holds the lock or gives up. A reservation is fresh while
 * its record is younger than its ttl by the reader's clock and the reader has not itself seen it
 * unchanged for longer than its ttl, so a dead reserver holds nobody back for longer than its ttl.
 * Cost: nothing on the uncontended path (an acquire stays one create-only write, a release one
 * conditional delete); under contention one read per attempt, and a write to claim, one per ttl/3
 * to refresh and a delete to finish for the one waiter that reserves. The reservation is advisory:
 * the lock object alone excludes. The original tool, which knows nothing of it, still contends by
 * the lock object and is excluded by it; so is an acquirer that met no contention within two ttls,
 * which makes its one create without reading the reservation and may pass a reserver that way.
 * Every acquirer that keeps polling holds back, so a waiter that outlasts the bound is next among
 * them.
 *
 * <p>Acquiring retries {@link DatastoreUnavailableException} and {@link OutcomeUnknownException}
 * within the maximum wait (a create whose answer was lost is resolved by reading the record back:
 * our nonce means we hold it); any other datastore failure, such as access denied, propagates at
 * once. When the wait runs out, {@link LockTimeoutException} names the key, the last holder seen and
 * the time waited; when no attempt ever reached the store, the last store failure is thrown
 * instead. A thread interrupted while waiting gets {@link InterruptedOperationException}. Every
 * lock takes {@link LockLevel#GLOBAL} in the lock order, on the thread that acquires it.
 *
 * <pre>{@code
 * DistributedLock lock = LeaseLocks.builder(datastore, LeaseLocks.globalKey(namespace)).build();
 * try (LockLease lease = lock.acquire()) {
 *   ...
 * }
 * }</pre>
 */
public final class LeaseLocks {

  /** The name of the datastore global lock's object. */
  public static final String GLOBAL_LOCK_NAME = ".datastore.lock";

  /** The default number of consecutive handovers of one remote holding in this JVM. */
  public static final int DEFAULT_HANDOVERS = 16;

  /** The default longest time one remote holding is handed over in this JVM, since its remote acquisition. */
  public static final Duration DEFAULT_HANDOVER_HELD = Duration.ofSeconds(10);

  private LeaseLocks() {}

  /**
   * {@return the key of the datastore global lock: {@code .datastore.lock}, or {@code
   * <namespace>/.datastore.lock}, inside the namespace so that credentials scoped to the namespace
   * can take it}
   *
   * @param namespace the namespace the lock guards
   */
  public static ObjectKey globalKey(Namespace namespace) {
    return namespace.rootKey(GLOBAL_LOCK_NAME);
  }

  /**
   * Starts building a lock kept at {@code key} in {@code datastore}.
   *
   * @param datastore where the lock lives; not closed by the lock
   * @param key the lock object's key
   * @return a builder with the defaults: {@link LockOptions#DEFAULTS}, the system UTC clock, real
   *     sleeping, a {@link SecureRandom} for jitter, {@link LockIdentity#current()}, random UUID
   *     nonces, {@link Heartbeats#daemonThreads()}, {@link HostProcesses#system()} and the default
   *     handover budget
   */
  public static Builder builder(Datastore datastore, ObjectKey key) {
    return new Builder(datastore, key);
  }

  /** Configures one lease lock. Not thread-safe; the lock it builds is. */
  public static final class Builder {

    private final Datastore datastore;
    private final ObjectKey key;
    private LockOptions options = LockOptions.DEFAULTS;
    private Clock clock = Clock.systemUTC();
    private Sleeper sleeper = Sleeper.SYSTEM;
    private RandomGenerator random = new SecureRandom();
    private Supplier<LockIdentity> identity = LockIdentity::current;
    private Supplier<String> nonces = () -> UUID.randomUUID().toString();
    private Heartbeats heartbeats = Heartbeats.daemonThreads();
    private HostProcesses processes = HostProcesses.system();
    private int handovers = DEFAULT_HANDOVERS;
    private Duration handoverHeld = DEFAULT_HANDOVER_HELD;

    private Builder(Datastore datastore, ObjectKey key) {
      this.datastore = datastore;
      this.key = key;
    }

    /**
     * Sets the ttl, retry intervals and maximum wait.
     *
     * @param value the lock's timing
     * @return this builder
     */
    public Builder options(LockOptions value) {
      this.options = value;
      return this;
    }

    /**
     * Sets the clock that stamps records, judges staleness and measures waits.
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      this.clock = value;
      return this;
    }

    /**
     * Sets how the lock waits between attempts.
     *
     * @param value what spends the waits
     * @return this builder
     */
    public Builder sleeper(Sleeper value) {
      this.sleeper = value;
      return this;
    }

    /**
     * Sets the source of the backoff jitter. The lock draws from it under its own lock.
     *
     * @param value the source of the jitter
     * @return this builder
     */
    public Builder random(RandomGenerator value) {
      this.random = value;
      return this;
    }

    /**
     * Sets who the records name as the holder (default: this process, looked up once at build).
     *
     * @param value the identity the records name
     * @return this builder
     */
    public Builder identity(LockIdentity value) {
      this.identity = () -> value;
      return this;
    }

    /**
     * Sets where nonces come from: one per acquisition, unique, matching {@code
     * [A-Za-z0-9-]{1,128}} (default: random UUIDs).
     *
     * @param value the source of the nonces
     * @return this builder
     */
    public Builder nonces(Supplier<String> value) {
      this.nonces = value;
      return this;
    }

    /**
     * Sets what runs the heartbeats of held leases.
     *
     * @param value what runs the heartbeats
     * @return this builder
     */
    public Builder heartbeats(Heartbeats value) {
      this.heartbeats = value;
      return this;
    }

    /**
     * Sets what the lock knows of this host's processes, to take over at once a holder on this host
     * whose process is gone (default: {@link HostProcesses#system()}).
     *
     * @param value this host's processes
     * @return this builder
     */
    public Builder hostProcesses(HostProcesses value) {
      this.processes = value;
      return this;
    }

    /**
     * Sets how far one remote holding may be handed from lease to lease in this JVM before it is
     * released remotely, so that other processes get their turn (default: {@value
     * #DEFAULT_HANDOVERS} handovers, or {@link #DEFAULT_HANDOVER_HELD} since the remote acquisition,
     * whichever ends first). Zero handovers turns handing over off.
     *
     * @param leases the most consecutive handovers; not negative
     * @param held the longest a holding may have been held when it is handed over; not negative
     * @return this builder
     * @throws IllegalArgumentException if a value is negative
     */
    public Builder handoverBudget(int leases, Duration held) {
      if (leases < 0 || held.isNegative()) {
        throw new IllegalArgumentException("Cannot use handover budget of " + leases + " leases and " + held
            + ": neither may be negative");
      }
      this.handovers = leases;
      this.handoverHeld = held;
      return this;
    }

    /**
     * Builds the lock. It holds nothing until acquired.
     *
     * @return the lock, not held
     */
    public DistributedLock build() {
      return new LeaseLock(datastore, key, options, clock, sleeper, random, identity.get(), nonces, heartbeats,
          processes, new LeaseLock.HandoverBudget(handovers, handoverHeld));
    }
  }
}
