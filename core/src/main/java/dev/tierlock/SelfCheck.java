package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnavailableException;
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
 * afterwards. Probes left by a process that died mid-check are swept by a later check once their
 * name says they are older than {@link #STALE_PROBE} by the sweeper's clock. Nothing tells a dead
 * check from one that is only stalled (a GC pause, a SIGSTOP, a closed laptop lid) or whose clock
 * runs behind the sweeper's, so a sweep may delete the probe of a check still in progress, and a
 * store that honours every precondition must pass all the same. So a sweep first writes the probe's
 * <em>tombstone</em> {@code swept-<epoch millis>-<uuid>} (create-only, the probe's own name suffix)
 * and only then deletes the probe, conditional on the version it listed; tombstones are swept once
 * their name is older than {@link #STALE_TOMBSTONE}.
 *
 * <p>A failed proof that a deletion of its probe explains (a create-only write over the probe that
 * lands; a write or delete conditional on the probe's current version that does not; a stale delete
 * after which the probe is gone; several winners of a create race; no winner of a swap race) is
 * judged after one stat of the probe's tombstone. With a tombstone there (it is deleted then), or
 * with the probe older than {@link #STALE_PROBE} by this check's own clock (any peer may have swept
 * it, and a sweeper days ahead its tombstone too), the attempt proves nothing: the check starts
 * again with fresh probes, and after {@value #ATTEMPTS} such attempts fails as unavailable (it runs
 * again later), never as unsafe. Otherwise the store is unsafe at once, as if there were no sweeps:
 * no sweep touched that probe, and a store that ignores a precondition breaks it again in every
 * attempt. A failed proof no deletion explains (a refused create-only write of a fresh key, a stale
 * write that lands, a stale delete that is not refused yet leaves the object, a version that does
 * not change, several winners of a swap race) is unsafe at once. Tombstones cost a check no sweep
 * touches no call: the sweep's one listing covers probes and tombstones alike, and a tombstone is
 * looked up only after a failed proof. Stateless apart from its configuration.
 */
final class SelfCheck {

  /** The probes' prefix below the namespace. */
  static final String PREFIX = ".tierlock-selfcheck/";

  /** How many writers race in each atomicity round. */
  static final int RACERS = 8;

  /** How many rounds of each race. */
  static final int ROUNDS = 2;

  /**
   * How old a probe's name must say it is before a later check sweeps it: a day, so that a stalled
   * check or a skewed clock seldom costs a check an attempt.
   */
  static final Duration STALE_PROBE = Duration.ofHours(24);

  /** How old a tombstone's name must say its probe is before a later check sweeps the tombstone. */
  static final Duration STALE_TOMBSTONE = Duration.ofDays(7);

  /** How many attempts a check makes when sweeps keep deleting its probes. */
  static final int ATTEMPTS = 3;

  private static final String PROBE = "probe-";

  private static final String TOMBSTONE = "swept-";

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
   * Runs every proof; starts again with fresh probes when a sweep deleted one under an attempt.
   *
   * @throws DatastoreUnsafeException if the store broke a precondition; names the store and the proof
   * @throws DatastoreException if the store failed during the check, or sweeps deleted its probes in
   *     {@value #ATTEMPTS} attempts in a row (it may run again later)
   */
  void run() {
    sweep();
    for (int attempt = 1; ; attempt++) {
      try {
        sequential();
        for (int round = 0; round < ROUNDS; round++) {
          raceCreates();
          raceSwaps();
        }
        return;
      } catch (ProbeSwept swept) {
        if (attempt == ATTEMPTS) {
          throw new DatastoreUnavailableException("Cannot finish the self-check of datastore " + store.identity()
              + ": another check swept its probes in " + ATTEMPTS + " attempts in a row (last " + swept.getMessage()
              + "); the check runs again next time", null);
        }
        LOG.info("Self-check of {} starts again with fresh probes: another check swept {}", store.identity(),
            swept.getMessage());
      }
    }
  }

  private void sequential() {
    Probe probe = newProbe();
    ObjectVersion current = null;
    try {
      WriteResult first = store.write(probe.key(), body("create"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      if (!(first instanceof WriteResult.Written created)) {
        throw unsafe(probe.key(), "a create-only write of a fresh probe key failed its precondition");
      }
      current = created.version();
      if (store.write(probe.key(), body("overwrite"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY)
          instanceof WriteResult.Written written) {
        current = written.version();
        throw sweptOrUnsafe(probe, "a create-only write over an existing object succeeded");
      }
      ObjectVersion stale = current;
      if (!(store.write(probe.key(), body("update"), WriteCondition.mustMatch(stale), ObjectMetadata.EMPTY)
          instanceof WriteResult.Written updated)) {
        throw sweptOrUnsafe(probe, "a write conditional on the current version failed its precondition");
      }
      current = updated.version();
      if (current.equals(stale)) {
        throw unsafe(probe.key(), "a write with new bytes kept the object's version " + stale);
      }
      if (store.write(probe.key(), body("stale"), WriteCondition.mustMatch(stale), ObjectMetadata.EMPTY)
          instanceof WriteResult.Written written) {
        current = written.version();
        throw unsafe(probe.key(), "a write conditional on a stale version succeeded");
      }
      DeleteResult staleDelete = store.delete(probe.key(), WriteCondition.mustMatch(stale));
      Optional<StoredObject> after = store.stat(probe.key());
      if (after.isEmpty()) {
        current = null;
        throw sweptOrUnsafe(probe, "a delete conditional on a stale version deleted the object");
      }
      if (staleDelete != DeleteResult.PRECONDITION_FAILED) {
        current = after.get().version();
        throw unsafe(probe.key(), "a delete conditional on a stale version answered " + staleDelete);
      }
      if (store.delete(probe.key(), WriteCondition.mustMatch(current)) != DeleteResult.DELETED) {
        throw sweptOrUnsafe(probe, "a delete conditional on the current version did not delete the object");
      }
      if (store.stat(probe.key()).isPresent()) {
        throw unsafe(probe.key(), "a delete conditional on the current version did not delete the object");
      }
      current = null;
    } finally {
      cleanUp(probe.key(), current);
    }
  }

  private void raceCreates() {
    Probe probe = newProbe();
    List<Object> results = race(i -> store.write(probe.key(), body("racer " + i), WriteCondition.mustNotExist(),
        ObjectMetadata.EMPTY));
    try {
      long winners = requireAnswers(results);
      if (winners > 1) {
        // a sweep between two racers' writes lets the later one win too
        throw sweptOrUnsafe(probe, RACERS + " concurrent create-only writes of one fresh key had " + winners
            + " winners, not exactly one");
      }
      if (winners == 0) {
        throw unsafe(probe.key(), RACERS + " concurrent create-only writes of one fresh key had no winner");
      }
    } finally {
      cleanUp(probe.key(), store.stat(probe.key()).map(StoredObject::version).orElse(null));
    }
  }

  private void raceSwaps() {
    Probe probe = newProbe();
    WriteResult created = store.write(probe.key(), body("base"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
    if (!(created instanceof WriteResult.Written base)) {
      throw unsafe(probe.key(), "a create-only write of a fresh probe key failed its precondition");
    }
    try {
      List<Object> results = race(i -> store.write(probe.key(), body("swapper " + i),
          WriteCondition.mustMatch(base.version()), ObjectMetadata.EMPTY));
      long winners = requireAnswers(results);
      if (winners > 1) {
        throw unsafe(probe.key(), RACERS + " concurrent writes conditional on one version had " + winners
            + " winners, not exactly one");
      }
      if (winners == 0) {
        // a sweep of the base before the race leaves nothing to swap
        throw sweptOrUnsafe(probe, RACERS + " concurrent writes conditional on one version had no winner");
      }
    } finally {
      cleanUp(probe.key(), store.stat(probe.key()).map(StoredObject::version).orElse(null));
    }
  }

  /**
   * Returns how many of the answered writes won. A racer the store refused outright (unavailable,
   * throttled) is no winner; a race with no winner but such refusals proves nothing and fails with
   * the refusal, so the check runs again later.
   */
  private static long requireAnswers(List<Object> results) {
    long winners = results.stream().filter(r -> r instanceof WriteResult.Written).count();
    if (winners == 0) {
      for (Object r : results) {
        if (r instanceof RuntimeException failure) {
          throw failure;
        }
      }
    }
    return winners;
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

  /**
   * Deletes tombstones older than {@link #STALE_TOMBSTONE}, then probes older than {@link
   * #STALE_PROBE}, left by checks that never finished (or that are still running, stalled or behind
   * this clock): each probe only after its tombstone is in place. One listing; best effort.
   */
  private void sweep() {
    long now = clock.millis();
    try {
      List<StoredObject> listed = store.list(namespace.name().map(n -> n + "/").orElse("") + PREFIX);
      for (StoredObject tombstone : listed) {
        if (bornMillis(tombstone.key(), TOMBSTONE).filter(born -> born < now - STALE_TOMBSTONE.toMillis()).isPresent()) {
          store.delete(tombstone.key(), WriteCondition.mustMatch(tombstone.version()));
        }
      }
      for (StoredObject probe : listed) {
        if (bornMillis(probe.key(), PROBE).filter(born -> born < now - STALE_PROBE.toMillis()).isPresent()) {
          // refused means a tombstone is there already: either way the probe's check can tell
          store.write(tombstoneOf(probe.key()), body("swept " + probe.key().name()), WriteCondition.mustNotExist(),
              ObjectMetadata.EMPTY);
          store.delete(probe.key(), WriteCondition.mustMatch(probe.version()));
        }
      }
    } catch (DatastoreException e) {
      LOG.warn("Cannot sweep old self-check probes of {}: {}", store.describe(), e.getMessage());
    }
  }

  /**
   * Returns the exception for a failed proof that a sweep deleting {@code probe} explains: {@link
   * ProbeSwept} when the probe's tombstone is there (consumed now) or the probe is older than {@link
   * #STALE_PROBE} by this clock, else the store's {@link DatastoreUnsafeException}. One stat, plus
   * one delete of a tombstone found.
   */
  private RuntimeException sweptOrUnsafe(Probe probe, String what) {
    Optional<StoredObject> tombstone = store.stat(probe.tombstone());
    tombstone.ifPresent(t -> cleanUp(probe.tombstone(), t.version()));
    if (tombstone.isPresent() || clock.millis() - probe.bornMillis() > STALE_PROBE.toMillis()) {
      return new ProbeSwept("probe key " + probe.key() + " while " + what);
    }
    return unsafe(probe.key(), what);
  }

  /** Returns the epoch millis in the name of {@code key} when it is {@code kind<millis>-<uuid>}. */
  private static Optional<Long> bornMillis(ObjectKey key, String kind) {
    String name = key.name();
    if (!name.startsWith(kind)) {
      return Optional.empty();
    }
    String[] parts = name.substring(kind.length()).split("-", 2);
    return parts.length == 2 && parts[0].matches("[0-9]{1,18}") ? Optional.of(Long.parseLong(parts[0])) : Optional.empty();
  }

  private ObjectKey tombstoneOf(ObjectKey probe) {
    return namespace.rootKey(PREFIX + TOMBSTONE + probe.name().substring(PROBE.length()));
  }

  private Probe newProbe() {
    long born = clock.millis();
    ObjectKey key = namespace.rootKey(PREFIX + PROBE + born + "-" + UUID.randomUUID());
    return new Probe(key, tombstoneOf(key), born);
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

  /** One probe: its key, its tombstone's key, and the epoch millis its name carries. */
  private record Probe(ObjectKey key, ObjectKey tombstone, long bornMillis) {}

  /** An attempt a sweep of its probe may have spoiled; its message names the probe and the failed proof. */
  private static final class ProbeSwept extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ProbeSwept(String message) {
      super(message, null, false, false);
    }
  }

  private static ObjectBody body(String text) {
    return ObjectBody.of(("tierlock self-check: " + text + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
