package dev.tierlock;

import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectKey;
import java.security.SecureRandom;
import java.time.Clock;
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
 * over by a write conditional on the stale version; release is a delete conditional on the held version. No operation ever
 * deletes or overwrites a lock unconditionally, so a stalled holder can never remove its successor's
 * lock. A record that cannot be read is treated as held until it has stayed unchanged for longer
 * than this lock's ttl: {@link DistributedLock#inspect()} then throws {@link
 * LockUnreadableException} (code {@code lock_unreadable}) rather than report the lock free, and
 * {@link DistributedLock#forceRelease(String)} cannot match its nonce.
 *
 * <p>Acquiring retries {@link DatastoreUnavailableException} and {@link OutcomeUnknownException}
 * within the maximum wait (a create whose answer was lost is resolved by reading the record back:
 * our nonce means we hold it); any other datastore failure, such as access denied, propagates at
 * once. When the wait runs out, {@link LockTimeoutException} names the key, the last holder seen and
 * the time waited; when no attempt ever reached the store, the last store failure is thrown
 * instead. A thread interrupted while waiting gets {@link InterruptedOperationException}. Every
 * lock takes {@link LockLevel#GLOBAL} in the lock order.
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

  private LeaseLocks() {}

  /**
   * Returns the key of the datastore global lock: {@code .datastore.lock}, or {@code
   * <namespace>/.datastore.lock}, inside the namespace so that credentials scoped to the namespace
   * can take it.
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
   *     nonces and {@link Heartbeats#daemonThreads()}
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

    private Builder(Datastore datastore, ObjectKey key) {
      this.datastore = datastore;
      this.key = key;
    }

    /** Sets the ttl, retry intervals and maximum wait. */
    public Builder options(LockOptions value) {
      this.options = value;
      return this;
    }

    /** Sets the clock that stamps records, judges staleness and measures waits. */
    public Builder clock(Clock value) {
      this.clock = value;
      return this;
    }

    /** Sets how the lock waits between attempts. */
    public Builder sleeper(Sleeper value) {
      this.sleeper = value;
      return this;
    }

    /** Sets the source of the backoff jitter. The lock draws from it under its own lock. */
    public Builder random(RandomGenerator value) {
      this.random = value;
      return this;
    }

    /** Sets who the records name as the holder (default: this process, looked up once at build). */
    public Builder identity(LockIdentity value) {
      this.identity = () -> value;
      return this;
    }

    /**
     * Sets where nonces come from: one per acquisition, unique, matching {@code
     * [A-Za-z0-9-]{1,128}} (default: random UUIDs).
     */
    public Builder nonces(Supplier<String> value) {
      this.nonces = value;
      return this;
    }

    /** Sets what runs the heartbeats of held leases. */
    public Builder heartbeats(Heartbeats value) {
      this.heartbeats = value;
      return this;
    }

    /** Builds the lock. It holds nothing until acquired. */
    public DistributedLock build() {
      return new LeaseLock(datastore, key, options, clock, sleeper, random, identity.get(), nonces, heartbeats);
    }
  }
}
