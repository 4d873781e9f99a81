package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.DistributedLock;
import dev.tierlock.LeaseLocks;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockInfo;
import dev.tierlock.LockOptions;
import dev.tierlock.Namespace;
import dev.tierlock.Sleeper;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The fixture of one {@link DistributedLockContract} test: the store under test wrapped in fault
 * injection and a log, a {@link TestClock}, hand-driven heartbeats, and locks of named peers on one
 * key. The scenario classes ({@code Lock*Scenarios}) share it. Not thread-safe.
 */
final class LockFixture {

  /** The lock's key: the global lock of namespace {@code ns1}. */
  static final ObjectKey KEY = LeaseLocks.globalKey(Namespace.of("ns1"));

  /** The options of every peer unless a test says otherwise: the defaults (ttl 30 s, 1 s to 8 s, 60 s). */
  static final LockOptions OPTIONS = LockOptions.DEFAULTS;

  static final Duration TTL = OPTIONS.ttl();

  /** The heartbeat interval, a third of the ttl. */
  static final Duration BEAT = TTL.dividedBy(3);

  private final FaultyDatastore store;
  private final TestClock clock;
  private final ManualHeartbeats heartbeats;

  LockFixture(FaultyDatastore store, TestClock clock, ManualHeartbeats heartbeats) {
    this.store = store;
    this.clock = clock;
    this.heartbeats = heartbeats;
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

  /** Returns a builder of peer {@code name}'s lock: the test clock, its sleeper, seeded jitter. */
  LeaseLocks.Builder peer(String name) {
    return LeaseLocks.builder(store, KEY)
        .options(OPTIONS)
        .clock(clock)
        .sleeper(clock.sleeper())
        .random(new SplittableRandom(name.hashCode()))
        .identity(LockIdentity.of(name + "@host-" + name, "host-" + name, 1000 + Math.abs(name.hashCode() % 1000)))
        .heartbeats(heartbeats);
  }

  /** Returns peer {@code name}'s lock with the defaults of {@link #peer}. */
  DistributedLock lockOf(String name) {
    return peer(name).build();
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

  /** Returns the holder the store shows now (through a lock that only inspects). */
  LockInfo storedHolder() {
    return LeaseLocks.builder(store.delegate(), KEY).identity(LockIdentity.of("inspector@h", "h", 0)).build().inspect()
        .orElseThrow(() -> new AssertionError("no holder at " + KEY));
  }

  /** Returns the logged calls of {@code operation} as {@code condition -> outcome} strings. */
  List<String> logged(DatastoreOperation operation) {
    return store.log().entries(operation).stream().map(e -> e.condition() + " -> " + e.outcome()).toList();
  }

  /** Returns the condition text the log uses for a write or delete conditional on {@code version}. */
  static String mustMatch(ObjectVersion version) {
    return "mustMatch(" + version.value() + ")";
  }

  /**
   * Asserts that the waits started near the retry interval, roughly doubled up to the maximum, each
   * within the jitter band [0.75, 1.25) of its base (capped at the maximum), the last clamped to what
   * remained of the wait.
   */
  static void assertBackoffWithinBounds(List<Duration> sleeps, LockOptions options) {
    assertThat(sleeps).isNotEmpty();
    Duration base = options.retryInterval();
    Duration total = Duration.ZERO;
    for (int i = 0; i < sleeps.size(); i++) {
      Duration wait = sleeps.get(i);
      Duration remaining = options.maxWait().minus(total);
      Duration high = min(base.multipliedBy(5).dividedBy(4), options.maxRetryInterval());
      assertThat(wait).as("wait %d of %s", i, sleeps).isLessThanOrEqualTo(high).isLessThanOrEqualTo(remaining);
      if (!wait.equals(remaining)) {
        assertThat(wait).as("wait %d of %s", i, sleeps).isGreaterThanOrEqualTo(base.multipliedBy(3).dividedBy(4));
      }
      total = total.plus(wait);
      base = min(base.multipliedBy(2), options.maxRetryInterval());
    }
    assertThat(total).isEqualTo(options.maxWait());
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
