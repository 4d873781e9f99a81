package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proof that a datastore honours the preconditions every guarantee rests on, run on fresh probe
 * keys under {@code [<namespace>/].tierlock-selfcheck/}:
 *
 * <ol>
 *   <li>create-only on a fresh key lands, and again on the same key is refused;
 *   <li>a write conditional on the current version lands with a new version; on a stale one it is
 *       refused;
 *   <li>a delete conditional on a stale version is refused and leaves the object; on the current
 *       version it deletes it (the lease release and archive deletions rely on it);
 *   <li>atomicity: {@value #RACERS} parallel create-only writes of a fresh key, and as many writes
 *       conditional on one version, each have exactly one winner, for {@value #ROUNDS} rounds (a
 *       store that checks preconditions one request at a time but not atomically lets several lock
 *       holders in at once).
 * </ol>
 *
 * <p>Probe keys are {@code probe-<epoch millis>-<uuid>} and are deleted by conditional deletes
 * afterwards; probes left by a process that died mid-check are swept by a later check once they are
 * an hour old. Stateless apart from its configuration.
 */
final class SelfCheck {

  /** The probes' prefix below the namespace. */
  static final String PREFIX = ".tierlock-selfcheck/";

  /** How many writers race in each atomicity round. */
  static final int RACERS = 8;

  /** How many rounds of each race. */
  static final int ROUNDS = 2;

  /** How old a probe must be before a later check sweeps it. */
  static final Duration STALE_PROBE = Duration.ofHours(1);

  private static final Logger LOG = LoggerFactory.getLogger(SelfCheck.class);

  private final Datastore store;
  private final Namespace namespace;
  private final Clock clock;

  SelfCheck(Datastore store, Namespace namespace, Clock clock) {
    this.store = store;
    this.namespace = namespace;
    this.clock = clock;
  }

  /** Returns the key of the verdict object under the probe prefix. */
  ObjectKey verdictKey() {
    return namespace.rootKey(PREFIX + "verdict");
  }

  /**
   * Runs every proof.
   *
   * @throws DatastoreUnsafeException if the store broke a precondition; names the store and the proof
   * @throws DatastoreException if the store failed during the check (it may run again later)
   */
  void run() {
    sweep();
    sequential();
    for (int round = 0; round < ROUNDS; round++) {
      raceCreates();
      raceSwaps();
    }
  }

  private void sequential() {
    ObjectKey probe = newProbe();
    ObjectVersion current = null;
    try {
      WriteResult first = store.write(probe, body("create"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      if (!(first instanceof WriteResult.Written created)) {
        throw unsafe(probe, "a create-only write of a fresh probe key failed its precondition");
      }
      current = created.version();
      if (store.write(probe, body("overwrite"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY)
          instanceof WriteResult.Written written) {
        current = written.version();
        throw unsafe(probe, "a create-only write over an existing object succeeded");
      }
      ObjectVersion stale = current;
      if (!(store.write(probe, body("update"), WriteCondition.mustMatch(stale), ObjectMetadata.EMPTY)
          instanceof WriteResult.Written updated)) {
        throw unsafe(probe, "a write conditional on the current version failed its precondition");
      }
      current = updated.version();
      if (current.equals(stale)) {
        throw unsafe(probe, "a write with new bytes kept the object's version " + stale);
      }
      if (store.write(probe, body("stale"), WriteCondition.mustMatch(stale), ObjectMetadata.EMPTY)
          instanceof WriteResult.Written written) {
        current = written.version();
        throw unsafe(probe, "a write conditional on a stale version succeeded");
      }
      DeleteResult staleDelete = store.delete(probe, WriteCondition.mustMatch(stale));
      Optional<StoredObject> after = store.stat(probe);
      if (staleDelete != DeleteResult.PRECONDITION_FAILED || after.isEmpty()) {
        current = after.map(StoredObject::version).orElse(null);
        throw unsafe(probe, "a delete conditional on a stale version " + (after.isEmpty() ? "deleted the object"
            : "answered " + staleDelete));
      }
      if (store.delete(probe, WriteCondition.mustMatch(current)) != DeleteResult.DELETED
          || store.stat(probe).isPresent()) {
        throw unsafe(probe, "a delete conditional on the current version did not delete the object");
      }
      current = null;
    } finally {
      cleanUp(probe, current);
    }
  }

  private void raceCreates() {
    ObjectKey probe = newProbe();
    List<Object> results = race(i -> store.write(probe, body("racer " + i), WriteCondition.mustNotExist(),
        ObjectMetadata.EMPTY));
    try {
      requireOneWinner(probe, results, "create-only writes of one fresh key");
    } finally {
      cleanUp(probe, store.stat(probe).map(StoredObject::version).orElse(null));
    }
  }

  private void raceSwaps() {
    ObjectKey probe = newProbe();
    WriteResult created = store.write(probe, body("base"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
    if (!(created instanceof WriteResult.Written base)) {
      throw unsafe(probe, "a create-only write of a fresh probe key failed its precondition");
    }
    try {
      List<Object> results = race(i -> store.write(probe, body("swapper " + i),
          WriteCondition.mustMatch(base.version()), ObjectMetadata.EMPTY));
      requireOneWinner(probe, results, "writes conditional on one version");
    } finally {
      cleanUp(probe, store.stat(probe).map(StoredObject::version).orElse(null));
    }
  }

  /**
   * Requires exactly one winner among the answered writes. A racer the store refused outright
   * (unavailable, throttled) is no winner; a race with no winner but such refusals proves nothing
   * and fails with the refusal, so the check runs again later.
   */
  private void requireOneWinner(ObjectKey probe, List<Object> results, String what) {
    long winners = results.stream().filter(r -> r instanceof WriteResult.Written).count();
    if (winners > 1) {
      throw unsafe(probe, RACERS + " concurrent " + what + " had " + winners + " winners, not exactly one");
    }
    if (winners == 0) {
      for (Object r : results) {
        if (r instanceof RuntimeException failure) {
          throw failure;
        }
      }
      throw unsafe(probe, RACERS + " concurrent " + what + " had no winner");
    }
  }

  /** A write of racer {@code i}. */
  @FunctionalInterface
  private interface Racer {
    WriteResult write(int i);
  }

  /** Runs {@link #RACERS} writes at once; returns each one's {@link WriteResult} or the {@link DatastoreException} it threw. */
  private List<Object> race(Racer racer) {
    ExecutorService pool = Executors.newFixedThreadPool(RACERS, r -> {
      Thread t = new Thread(r, "tierlock-selfcheck");
      t.setDaemon(true);
      return t;
    });
    try {
      CountDownLatch ready = new CountDownLatch(RACERS);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Object>> futures = new ArrayList<>();
      for (int i = 0; i < RACERS; i++) {
        int n = i;
        futures.add(pool.submit(() -> {
          ready.countDown();
          go.await();
          try {
            return (Object) racer.write(n);
          } catch (DatastoreException e) {
            return e;
          }
        }));
      }
      ready.await();
      go.countDown();
      List<Object> results = new ArrayList<>();
      for (Future<Object> future : futures) {
        results.add(future.get());
      }
      return results;
    } catch (InterruptedException e) {
      throw new InterruptedOperationException("Cannot run the self-check of " + store.describe(), e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("Cannot run the self-check of " + store.describe() + ": " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Deletes probes older than {@link #STALE_PROBE}, left by checks that never finished; best effort. */
  private void sweep() {
    String prefix = namespace.rootKey(PREFIX + "probe-").value();
    Instant cutoff = clock.instant().minus(STALE_PROBE);
    try {
      for (StoredObject probe : store.list(prefix)) {
        String name = probe.key().name();
        String[] parts = name.split("-", 3);
        if (parts.length == 3 && parts[1].matches("[0-9]{1,19}")
            && Instant.ofEpochMilli(Long.parseLong(parts[1])).isBefore(cutoff)) {
          store.delete(probe.key(), WriteCondition.mustMatch(probe.version()));
        }
      }
    } catch (DatastoreException e) {
      LOG.warn("Cannot sweep old self-check probes of {}: {}", store.describe(), e.getMessage());
    }
  }

  private ObjectKey newProbe() {
    return namespace.rootKey(PREFIX + "probe-" + clock.millis() + "-" + UUID.randomUUID());
  }

  private void cleanUp(ObjectKey probe, @Nullable ObjectVersion version) {
    if (version == null) {
      return;
    }
    try {
      if (store.delete(probe, WriteCondition.mustMatch(version)) == DeleteResult.PRECONDITION_FAILED) {
        store.stat(probe).ifPresent(now -> store.delete(probe, WriteCondition.mustMatch(now.version())));
      }
    } catch (DatastoreException e) {
      LOG.warn("Cannot delete self-check probe {} from {}: {}; a later check sweeps it", probe, store.describe(),
          e.getMessage());
    }
  }

  private DatastoreUnsafeException unsafe(ObjectKey probe, String what) {
    return new DatastoreUnsafeException("Cannot write to datastore " + store.identity()
        + ": it does not honour write preconditions (" + what + ", probe key " + probe
        + "); Tierlock refuses to write to it", null);
  }

  private static ObjectBody body(String text) {
    return ObjectBody.of(("tierlock self-check: " + text + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
