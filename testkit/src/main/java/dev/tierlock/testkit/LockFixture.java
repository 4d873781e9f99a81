package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.DistributedLock;
import dev.tierlock.Environment;
import dev.tierlock.Heartbeats;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockInfo;
import dev.tierlock.LockOptions;
import dev.tierlock.Namespace;
import dev.tierlock.Sleeper;
import dev.tierlock.Tierlock;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The fixture of one {@link DistributedLockContract} test: the store under test wrapped in fault
 * injection and a log, a {@link TestClock}, hand-driven heartbeats, and the global locks of named
 * peers, each built as a {@link Tierlock} of its own (a checkout in a directory of its own) on that
 * store in namespace {@code ns1}. The store passes Tierlock's precondition self-check once, when the
 * fixture is made; the log is cleared after it and the objects it leaves are remembered ({@link
 * #leftovers()}), so that the scenarios see the locks' calls and objects alone. The scenario classes
 * ({@code Lock*Scenarios}) share it. Not thread-safe.
 */
final class LockFixture {

  /** The namespace of every peer. */
  static final Namespace NAMESPACE = Namespace.of("ns1");

  /** The lock's key: the global lock of namespace {@code ns1}. */
  static final ObjectKey KEY = DistributedLock.globalKey(NAMESPACE);

  /** The key of the lock's reservation of the next turn: {@code <key>.reservation}, next to it. */
  static final ObjectKey RESERVATION = ObjectKey.of(KEY.value() + ".reservation");

  /** The options of every peer unless a test says otherwise: the defaults (ttl 30 s, 1 s to 8 s, 60 s). */
  static final LockOptions OPTIONS = LockOptions.DEFAULTS;

  static final Duration TTL = OPTIONS.ttl();

  /** When every peer's process started, unless a test says otherwise. */
  static final java.time.Instant PROCESS_START = TestClock.DEFAULT_START.minus(Duration.ofHours(1));

  /** The heartbeat interval, a third of the ttl. */
  static final Duration BEAT = TTL.dividedBy(3);

  private final FaultyDatastore store;
  private final TestClock clock;
  private final ManualHeartbeats heartbeats;
  private final Path checkouts;
  private final Set<String> checkedIn;

  /**
   * Makes the fixture and runs the self-check of {@code store} through a first peer's Tierlock.
   *
   * @param checkouts an empty directory for the peers' checkouts
   * @throws dev.tierlock.spi.DatastoreUnsafeException if the store ignores preconditions
   */
  LockFixture(FaultyDatastore store, TestClock clock, ManualHeartbeats heartbeats, Path checkouts) {
    this.store = store;
    this.clock = clock;
    this.heartbeats = heartbeats;
    this.checkouts = checkouts;
    Tierlock checker = Tierlock.builder().datastore(store).checkout(checkouts.resolve("self-check"))
        .namespace(NAMESPACE).environment(Environment.system().withClock(clock).withSleeper(clock.sleeper())).build();
    checker.checkDatastore();
    this.checkedIn = keys();
    store.log().clear();
  }

  /** Returns the store under test, with fault injection and a log. */
  FaultyDatastore store() {
    return store;
  }

  TestClock clock() {
    return clock;
  }

  /** Returns the heartbeats every peer's leases are scheduled on, beaten by hand. */
  ManualHeartbeats heartbeats() {
    return heartbeats;
  }

  /**
   * Returns a builder of peer {@code name}'s lock: the test clock, its sleeper, seeded jitter, and a
   * host of its own ({@code host-<name>}) on which only its process runs.
   */
  Peer peer(String name) {
    long pid = 1000 + Math.abs(name.hashCode() % 1000);
    return peerOn(name, HostTable.of("host-" + name).run(pid, PROCESS_START), pid);
  }

  /**
   * Returns a builder of peer {@code name}'s lock as process {@code pid} of {@code host}: as {@link
   * #peer}, but judging holders on that host by that table.
   */
  Peer peerOn(String name, HostTable host, long pid) {
    return new Peer(name, Environment.system()
        .withClock(clock)
        .withSleeper(clock.sleeper())
        .withRandom(new SplittableRandom(name.hashCode()))
        .withLockIdentity(LockIdentity.of(name + "@" + host.hostname(), host.hostname(), pid))
        .withHeartbeats(heartbeats)
        .withHostProcesses(host));
  }

  /** Returns peer {@code name}'s lock with the defaults of {@link #peer}. */
  DistributedLock lockOf(String name) {
    return peer(name).build();
  }

  /**
   * Returns the global lock of a checkout of its own on the store under test, built by {@link
   * Tierlock} in {@link #NAMESPACE} with {@code environment} and {@code options}.
   */
  DistributedLock globalLock(String checkout, Environment environment, LockOptions options) {
    return Tierlock.builder().datastore(store).checkout(checkouts.resolve(checkout)).namespace(NAMESPACE)
        .environment(environment).lockOptions(options).build().globalLock();
  }

  /** One peer's lock as it will be built: its environment and options. Not thread-safe. */
  final class Peer {
    private final String name;
    private Environment environment;
    private LockOptions options = OPTIONS;

    private Peer(String name, Environment environment) {
      this.name = name;
      this.environment = environment;
    }

    Peer options(LockOptions value) {
      options = value;
      return this;
    }

    Peer clock(Clock value) {
      environment = environment.withClock(value);
      return this;
    }

    Peer sleeper(Sleeper value) {
      environment = environment.withSleeper(value);
      return this;
    }

    Peer heartbeats(Heartbeats value) {
      environment = environment.withHeartbeats(value);
      return this;
    }

    Peer nonces(Supplier<String> value) {
      environment = environment.withNonces(value);
      return this;
    }

    /** Builds the peer's lock, through a Tierlock of its own on the store under test. */
    DistributedLock build() {
      return globalLock(name, environment, options);
    }
  }

  /** Returns a sleeper that advances the test clock, then beats {@code beats} (a holder alive meanwhile). */
  Sleeper sleeperBeating(ManualHeartbeats beats) {
    Sleeper advance = clock.sleeper();
    return d -> {
      advance.sleep(d);
      beats.beat();
    };
  }

  /** Advances the clock by {@code d}, then beats the shared heartbeats. */
  void beatAfter(Duration d) {
    clock.advance(d);
    heartbeats.beat();
  }

  /** Writes {@code body} as the lock object, past the fault injection. */
  void plant(String body) {
    store.delegate().write(KEY, ObjectBody.of(body.getBytes(StandardCharsets.UTF_8)), WriteCondition.none(),
        ObjectMetadata.EMPTY);
  }

  /** Returns the lock object as the store holds it now, read past the fault injection. */
  StoredObject stored() {
    return store.delegate().stat(KEY).orElseThrow(() -> new AssertionError("no lock object at " + KEY));
  }

  /** Returns the lock's current version, read past the fault injection. */
  ObjectVersion storedVersion() {
    return stored().version();
  }

  /** Returns the holder the store shows now, read past the fault injection. */
  LockInfo storedHolder() {
    ReadResult read = store.delegate().read(KEY, ReadCondition.always(), LockInfo.MAX_BYTES);
    if (!(read instanceof ReadResult.Found found)) {
      throw new AssertionError("no holder at " + KEY);
    }
    return LockInfo.parse(KEY.value(), found.bytes());
  }

  /** Returns the keys of the objects the store holds now that the self-check did not leave, read past the fault injection. */
  Set<String> leftovers() {
    Set<String> now = keys();
    now.removeAll(checkedIn);
    return now;
  }

  private Set<String> keys() {
    Set<String> keys = new TreeSet<>();
    store.delegate().list("").forEach(o -> keys.add(o.key().value()));
    return keys;
  }

  /** Returns the logged calls of {@code operation} on the lock's key as {@code condition -> outcome} strings. */
  List<String> logged(DatastoreOperation operation) {
    return logged(operation, KEY);
  }

  /** Returns the logged calls of {@code operation} on {@code key} as {@code condition -> outcome} strings. */
  List<String> logged(DatastoreOperation operation, ObjectKey key) {
    return store.log().entries(operation).stream().filter(e -> e.target().equals(key.value()))
        .map(e -> e.condition() + " -> " + e.outcome()).toList();
  }

  /** Returns the condition text the log uses for a write or delete conditional on {@code version}. */
  static String mustMatch(ObjectVersion version) {
    return "mustMatch(" + version.value() + ")";
  }

  /**
   * Asserts the waits of a lone waiter that timed out on the test clock, on which an attempt takes
   * no time, so that its first cap is the shortest ({@code 1 ms}): each wait at most its cap, the
   * cap doubling from there up to the maximum retry interval; once the waiter has waited past its
   * bound and reserved the next turn, doubling from the first cap again up to the retry interval
   * (or a third of the ttl); the last clamped to what remained; the waits summing to the maximum
   * wait. Full jitter: a wait may be anything from zero to its cap.
   */
  static void assertBackoffWithinBounds(List<Duration> sleeps, LockOptions options) {
    assertThat(sleeps).isNotEmpty();
    Duration reserveAfter = min(options.maxRetryInterval().multipliedBy(2), options.maxWait().dividedBy(2));
    Duration reservedMax = min(options.retryInterval(), options.heartbeatInterval());
    boolean reserved = false;
    Duration total = Duration.ZERO;
    for (int i = 0; i < sleeps.size(); i++) {
      if (!reserved && total.compareTo(reserveAfter) > 0) {
        reserved = true;
      }
      Duration wait = sleeps.get(i);
      Duration remaining = options.maxWait().minus(total);
      // a wait grows with the time waited (a quarter of it past the queue's, by the lease's schedule),
      // never past the maximum retry interval, a reserver's never past its cap
      Duration cap = min(max(Duration.ofMillis(3), total.dividedBy(2)), reserved ? max(reservedMax, Duration.ofMillis(3))
          : options.maxRetryInterval());
      assertThat(wait).as("wait %d of %s, cap %s", i, sleeps, cap).isPositive().isLessThanOrEqualTo(cap)
          .isLessThanOrEqualTo(remaining);
      total = total.plus(wait);
    }
    assertThat(reserved).as("the waiter waited past its bound of %s", reserveAfter).isTrue();
    assertThat(total).isEqualTo(options.maxWait());
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
