package dev.tierlock;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * What Tierlock takes from the world around it: time, waiting, randomness, the ids it makes, the
 * process it runs in, and the threads that keep leases alive. A {@link Tierlock} is built with one
 * ({@link Tierlock.Builder#environment}) and everything built from it (its transaction, its global
 * lock, its local locks) uses that one, so that a test injects time in one place and never sleeps
 * for real.
 *
 * <pre>{@code
 * TestClock clock = TestClock.create();
 * Environment environment = Environment.system().withClock(clock).withSleeper(clock.sleeper());
 * Tierlock tierlock = Tierlock.builder().datastore(store).checkout(dir).environment(environment).build();
 * }</pre>
 *
 * <p>Immutable: each {@code with} method returns a new environment and leaves this one as it was.
 * No method accepts or returns null. Thread-safe, provided its parts are: Tierlock calls every
 * part from any of its threads (callers, heartbeats, shutdown), so each must be thread-safe itself;
 * the random source is the exception, as Tierlock draws from it under its own monitor.
 */
public final class Environment {

  private static final Environment SYSTEM = new Environment(Clock.systemUTC(), Sleeper.SYSTEM, new SecureRandom(),
      Heartbeats.daemonThreads(), HostProcesses.system(), null, () -> UUID.randomUUID().toString(), randomCommitIds(),
      name -> { }, waitedFor -> { });

  private final Clock clock;
  private final Sleeper sleeper;
  private final RandomGenerator random;
  private final Heartbeats heartbeats;
  private final HostProcesses hostProcesses;
  /** Null for this process, looked up when first asked. */
  private final @Nullable LockIdentity lockIdentity;
  private final Supplier<String> nonces;
  private final Supplier<String> commitIds;
  private final Consumer<String> boundaries;
  private final Consumer<String> queueing;

  private Environment(Clock clock, Sleeper sleeper, RandomGenerator random, Heartbeats heartbeats,
      HostProcesses hostProcesses, @Nullable LockIdentity lockIdentity, Supplier<String> nonces,
      Supplier<String> commitIds, Consumer<String> boundaries, Consumer<String> queueing) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.random = Objects.requireNonNull(random, "random");
    this.heartbeats = Objects.requireNonNull(heartbeats, "heartbeats");
    this.hostProcesses = Objects.requireNonNull(hostProcesses, "hostProcesses");
    this.lockIdentity = lockIdentity;
    this.nonces = Objects.requireNonNull(nonces, "nonces");
    this.commitIds = Objects.requireNonNull(commitIds, "commitIds");
    this.boundaries = Objects.requireNonNull(boundaries, "boundaries");
    this.queueing = Objects.requireNonNull(queueing, "queueing");
  }

  /**
   * {@return the real world: the system UTC clock, real sleeping, a {@link SecureRandom}, each
   * heartbeat on a daemon thread ({@link Heartbeats#daemonThreads()}), this host's processes
   * ({@link HostProcesses#system()}), this process as the lock holder ({@link
   * LockIdentity#current()}), random UUID nonces, commit ids of 16 random hex digits, crash
   * boundaries told to nobody, and queueing told to nobody}
   */
  public static Environment system() {
    return SYSTEM;
  }

  /** {@return the clock that stamps lock records, judges staleness and measures every wait and deadline} */
  public Clock clock() {
    return clock;
  }

  /** {@return how Tierlock waits between attempts (lock retries, publish backoff)} */
  public Sleeper sleeper() {
    return sleeper;
  }

  /** {@return the source of the jitter of every backoff; Tierlock draws from it under its own monitor} */
  public RandomGenerator random() {
    return random;
  }

  /** {@return what runs the heartbeats of held leases} */
  public Heartbeats heartbeats() {
    return heartbeats;
  }

  /** {@return what the global lock knows of this host's processes, to take over a dead holder on this host at once} */
  public HostProcesses hostProcesses() {
    return hostProcesses;
  }

  /**
   * {@return who lock records name as the holder: the identity set with {@link #withLockIdentity},
   * else this process ({@link LockIdentity#current()}, looked up on every call: the host name
   * lookup may be slow)}
   */
  public LockIdentity lockIdentity() {
    return lockIdentity != null ? lockIdentity : LockIdentity.current();
  }

  /** {@return where lock nonces come from: one per acquisition, unique, matching {@code [A-Za-z0-9-]{1,128}}} */
  public Supplier<String> nonces() {
    return nonces;
  }

  /** {@return where commit ids come from: unique per lockfile write, letters, digits and {@code -}, 1 to 64 characters} */
  public Supplier<String> commitIds() {
    return commitIds;
  }

  /**
   * {@return the hook told the name of each crash boundary as work passes it, on the thread that
   * passes it (a crash test stops the process there); by default it does nothing}
   */
  public Consumer<String> boundaries() {
    return boundaries;
  }

  /**
   * {@return the hook told what a caller waits for each time it has to queue in this JVM behind
   * another caller; by default it does nothing} See {@link #withQueueing}.
   */
  public Consumer<String> queueing() {
    return queueing;
  }

  /**
   * {@return this environment with another clock}
   *
   * @param value the clock
   */
  public Environment withClock(Clock value) {
    return new Environment(value, sleeper, random, heartbeats, hostProcesses, lockIdentity, nonces, commitIds,
        boundaries, queueing);
  }

  /**
   * {@return this environment with another way of waiting}
   *
   * @param value what spends the waits
   */
  public Environment withSleeper(Sleeper value) {
    return new Environment(clock, value, random, heartbeats, hostProcesses, lockIdentity, nonces, commitIds,
        boundaries, queueing);
  }

  /**
   * {@return this environment with another source of jitter}
   *
   * @param value the source of jitter; need not be thread-safe
   */
  public Environment withRandom(RandomGenerator value) {
    return new Environment(clock, sleeper, value, heartbeats, hostProcesses, lockIdentity, nonces, commitIds,
        boundaries, queueing);
  }

  /**
   * {@return this environment with another runner of heartbeats}
   *
   * @param value what runs the heartbeats of held leases
   */
  public Environment withHeartbeats(Heartbeats value) {
    return new Environment(clock, sleeper, random, value, hostProcesses, lockIdentity, nonces, commitIds,
        boundaries, queueing);
  }

  /**
   * {@return this environment with another view of this host's processes} Where containers share a
   * host name but not their process ids, pass one whose {@link HostProcesses#hostname()} no lock
   * record carries.
   *
   * @param value this host's processes
   */
  public Environment withHostProcesses(HostProcesses value) {
    return new Environment(clock, sleeper, random, heartbeats, value, lockIdentity, nonces, commitIds, boundaries,
        queueing);
  }

  /**
   * {@return this environment naming another holder in lock records}
   *
   * @param value who lock records name as the holder
   */
  public Environment withLockIdentity(LockIdentity value) {
    return new Environment(clock, sleeper, random, heartbeats, hostProcesses, Objects.requireNonNull(value, "value"),
        nonces, commitIds, boundaries, queueing);
  }

  /**
   * {@return this environment with another source of lock nonces}
   *
   * @param value one nonce per acquisition, unique, matching {@code [A-Za-z0-9-]{1,128}} (an
   *     acquisition given another fails with {@link IllegalStateException})
   */
  public Environment withNonces(Supplier<String> value) {
    return new Environment(clock, sleeper, random, heartbeats, hostProcesses, lockIdentity, value, commitIds,
        boundaries, queueing);
  }

  /**
   * {@return this environment with another source of commit ids} Short ids let a write carry a
   * longer lineage within the store's metadata capacity.
   *
   * @param value one id per lockfile write, unique, letters, digits and {@code -}, 1 to 64 characters
   */
  public Environment withCommitIds(Supplier<String> value) {
    return new Environment(clock, sleeper, random, heartbeats, hostProcesses, lockIdentity, nonces, value,
        boundaries, queueing);
  }

  /**
   * {@return this environment telling {@code value} the name of each crash boundary work passes}
   *
   * @param value the hook; it runs on the thread that passes the boundary and must return quickly
   *     (or not at all, to stop the process there)
   */
  public Environment withBoundaries(Consumer<String> value) {
    return new Environment(clock, sleeper, random, heartbeats, hostProcesses, lockIdentity, nonces, commitIds,
        value, queueing);
  }

  /**
   * {@return this environment telling {@code value} each time a caller of a Tierlock built with it
   * has to queue in this JVM behind another caller: a run behind the batch of runs on its checkout
   * (group commit), or a caller behind another on the checkout's transaction lock or
   * pulled-extensions lock, on the global lock (one queue per store, key and lock identity in this
   * JVM), or joining the checkout's convergence pass in flight} The hook is told
   * what the caller waits for, as messages name it: {@code the runs before this one on <store and
   * key>}, {@code transaction lock <path>}, {@code pulled-extensions lock of <checkout> (<path>)},
   * {@code lock "<key>" on <store>}, {@code the convergence pass in flight on <checkout>}; told
   * once per wait, on the caller's thread, once the caller has its place and before it
   * waits: the callers before it are served first. A caller that need not queue (nobody holds or
   * awaits what it takes) is not told; waiting for another process is the {@link #sleeper()}'s.
   * Tests wait on it (a latch, a semaphore) to know that a caller has queued, instead of watching
   * its thread; an application may count contention with it.
   *
   * @param value the hook; it may run under the queue's lock, so it must return quickly and must
   *     not call Tierlock
   */
  public Environment withQueueing(Consumer<String> value) {
    return new Environment(clock, sleeper, random, heartbeats, hostProcesses, lockIdentity, nonces, commitIds,
        boundaries, Objects.requireNonNull(value, "value"));
  }

  @Override
  public String toString() {
    return "Environment[clock=" + clock + ", sleeper=" + sleeper + ", random=" + random + ", heartbeats=" + heartbeats
        + ", hostProcesses=" + hostProcesses + ", lockIdentity=" + (lockIdentity == null ? "this process" : lockIdentity)
        + "]";
  }

  private static Supplier<String> randomCommitIds() {
    SecureRandom random = new SecureRandom();
    return () -> {
      byte[] bytes = new byte[8];
      random.nextBytes(bytes);
      return HexFormat.of().formatHex(bytes);
    };
  }
}
