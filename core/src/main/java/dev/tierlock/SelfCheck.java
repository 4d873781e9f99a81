package dev.tierlock;

import dev.tierlock.SelfCheckProbes.Probe;
import dev.tierlock.SelfCheckProbes.ProbeSwept;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proof that a datastore honours the preconditions every guarantee rests on, run on fresh probe
 * keys under {@code [<namespace>/].tierlock-selfcheck/}. Every probe written is read back: it must
 * hold the very bytes written, at the version its write returned.
 *
 * <ol>
 *   <li>In sequence: a create-only write of a fresh key lands, and again on the same key is refused;
 *       a write conditional on the current version lands with a new version, and on a stale one is
 *       refused; a delete conditional on a stale version is refused and leaves the object, and on
 *       the current version deletes it.
 *   <li>{@value #ROUNDS} rounds of two races, each of {@value #RACERS} calls started together: the
 *       racers' create-only writes of a fresh key, of which exactly one must win; then, on the
 *       version that winner wrote, 4 compare-and-swap writes against 4 conditional deletes, of
 *       which exactly one must win (a write that won leaves its bytes, a delete that won leaves no
 *       object). That is the race of a lease release against a takeover: a store whose delete
 *       checks the version and then deletes lets the release delete the taker's record.
 * </ol>
 *
 * <p><b>What it catches.</b> A store that ignores a precondition fails the sequence. A store that
 * checks preconditions one request at a time but not atomically passes the sequence and lets
 * several racers win some of the time. If its create-only writes, its compare-and-swaps or its
 * conditional deletes let two or more of 8 racers win in a quarter of races (S3Mock 5.2.0 does, in a
 * quarter to a half), each round catches it with probability 1/4, so the check refuses it with
 * probability 1 - (3/4)<sup>20</sup> = 1 - 0.00317 = 99.68 % (the rule asks for 99 %: 17 rounds
 * would give 99.25 %, 16 only 98.998 %); one that does so in half of the races, with probability 1 -
 * 2<sup>-20</sup>. The testkit's {@code Faults.nonAtomicPreconditions} plays such a store, and a test
 * measures the rate over seeded checks (300 of 300 refused, 100 for each kind of precondition).
 *
 * <p><b>What it costs.</b> On an empty probe prefix, 11 calls for the listing and the sequence,
 * then 18 or 19 a round (8 + 8 racing calls and a read back, then a read back and a delete of the
 * probe a write won, or a stat of the one a delete won): 371 to 391 calls in all, 244 of them writes,
 * in about 4 sequential steps a round, as the racers' calls go out 8 at a time; {@link
 * SelfCheckedDatastore} adds a stat and a write of the verdict. A full check runs only when no fresh
 * verdict is known (about once a day per store and chain of decorators); a later process proves a
 * known verdict with one stat.
 *
 * <p><b>What it lacks.</b> A store that answers a landed write, or a read, with no version is unsafe
 * (nothing could be conditional on a version); so is one that rejects create-only writes with an
 * error, twice in a row, while it takes a write without a condition (a client that refuses every
 * precondition). A failure that proves nothing either way (unavailable, outcome unknown) ends the
 * check with that failure, and it runs again next time. Every probe the check may have written is
 * removed on every path ({@link SelfCheckProbes}).
 *
 * <p><b>Sweeps.</b> Probe keys are {@code probe-<epoch millis>-<uuid>}. Probes left by a process that
 * died mid-check are swept by a later check once their name says they are older than {@link
 * #STALE_PROBE} by the sweeper's clock. Nothing tells a dead check from one that is only stalled (a
 * GC pause, a SIGSTOP, a closed laptop lid) or whose clock runs behind the sweeper's, so a sweep may
 * delete the probe of a check still in progress, and a store that honours every precondition must
 * pass all the same. So a sweep first writes the probe's <em>tombstone</em> {@code swept-<epoch
 * millis>-<uuid>} (create-only, the probe's own name suffix) and only then deletes the probe,
 * conditional on the version it listed; tombstones are swept once their name is older than {@link
 * #STALE_TOMBSTONE}. A failed proof that a deletion of its probe explains (a probe gone when read
 * back, a create-only write over the probe that lands, several winners of a race, a compare-and-swap
 * race with no winner) is judged after one stat of the probe's tombstone: with a tombstone there (it
 * is deleted then), or with the probe older than {@link #STALE_PROBE} by this check's own clock, the
 * attempt proves nothing and starts again with fresh probes, and after {@value #ATTEMPTS} such
 * attempts fails as unavailable; otherwise the store is unsafe at once. Stateless apart from its
 * configuration.
 */
final class SelfCheck {

  /** The probes' prefix below the namespace. */
  static final String PREFIX = ".tierlock-selfcheck/";

  /** How many calls race in each race. */
  static final int RACERS = 8;

  /** How many rounds of races: (3/4)<sup>20</sup> &lt; 1 - 0.99, see the class comment. */
  static final int ROUNDS = 20;

  /**
   * How old a probe's name must say it is before a later check sweeps it: a day, so that a stalled
   * check or a skewed clock seldom costs a check an attempt.
   */
  static final Duration STALE_PROBE = Duration.ofHours(24);

  /** How old a tombstone's name must say its probe is before a later check sweeps the tombstone. */
  static final Duration STALE_TOMBSTONE = Duration.ofDays(7);

  /** How many attempts a check makes when sweeps keep deleting its probes. */
  static final int ATTEMPTS = 3;

  /** The largest probe a read back accepts; every probe is under 100 bytes. */
  static final long MAX_PROBE_BYTES = 64 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(SelfCheck.class);

  private final Datastore store;
  private final Namespace namespace;
  private final Clock clock;
  private final int rounds;

  SelfCheck(Datastore store, Namespace namespace, Clock clock) {
    this(store, namespace, clock, ROUNDS);
  }

  /** A check of {@code rounds} rounds of races (the sequence alone for none), for tests of its other proofs. */
  SelfCheck(Datastore store, Namespace namespace, Clock clock, int rounds) {
    if (rounds < 0) {
      throw new IllegalArgumentException("Cannot run a self-check of " + rounds + " rounds: the count is never negative");
    }
    this.store = store;
    this.namespace = namespace;
    this.clock = clock;
    this.rounds = rounds;
  }

  /**
   * Runs every proof; starts again with fresh probes when a sweep deleted one under an attempt.
   *
   * @throws DatastoreUnsafeException if the store broke a precondition, lacks versions or rejects
   *     create-only writes; names the store and what it broke or lacks
   * @throws DatastoreException if the store failed during the check, or sweeps deleted its probes in
   *     {@value #ATTEMPTS} attempts in a row (it may run again later)
   */
  void run() {
    SelfCheckProbes probes = new SelfCheckProbes(store, namespace, clock);
    probes.sweep();
    try (SelfCheckRace race = new SelfCheckRace(store.describe())) {
      for (int attempt = 1; ; attempt++) {
        try {
          sequence(probes);
          for (int round = 1; round <= rounds; round++) {
            round(probes, race, round);
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
        } finally {
          probes.removeAll();
        }
      }
    }
  }

  /** The proofs in sequence, on one probe. */
  private void sequence(SelfCheckProbes probes) {
    Created created = createFresh(probes);
    Probe probe = created.probe();
    ObjectVersion first = created.version();
    readBack(probes, probe, "create", first, "a probe a create-only write had just written read back as absent");
    if (store.write(probe.key(), body("overwrite"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY)
        instanceof WriteResult.Written written) {
      landed(probes, probe, written);
      throw probes.sweptOrUnsafe(probe, "a create-only write over an existing object succeeded");
    }
    if (!(store.write(probe.key(), body("update"), WriteCondition.mustMatch(first), ObjectMetadata.EMPTY)
        instanceof WriteResult.Written updated)) {
      throw probes.sweptOrUnsafe(probe, "a write conditional on the current version failed its precondition");
    }
    ObjectVersion current = landed(probes, probe, updated);
    if (current.equals(first)) {
      throw unsafe(store, probe.key(), "a write with new bytes kept the object's version " + first);
    }
    readBack(probes, probe, "update", current, "a probe a compare-and-swap had just written read back as absent");
    if (store.write(probe.key(), body("stale"), WriteCondition.mustMatch(first), ObjectMetadata.EMPTY)
        instanceof WriteResult.Written written) {
      landed(probes, probe, written);
      throw unsafe(store, probe.key(), "a write conditional on a stale version succeeded");
    }
    DeleteResult staleDelete = store.delete(probe.key(), WriteCondition.mustMatch(first));
    readBack(probes, probe, "update", current, "a delete conditional on a stale version deleted the object");
    if (staleDelete != DeleteResult.PRECONDITION_FAILED) {
      throw unsafe(store, probe.key(), "a delete conditional on a stale version answered " + staleDelete);
    }
    if (store.delete(probe.key(), WriteCondition.mustMatch(current)) != DeleteResult.DELETED) {
      throw probes.sweptOrUnsafe(probe, "a delete conditional on the current version did not delete the object");
    }
    if (store.stat(probe.key()).isPresent()) {
      throw unsafe(store, probe.key(), "a delete conditional on the current version did not delete the object");
    }
    probes.gone(probe);
  }

  /** A probe a create-only write created, and the version it was given. */
  private record Created(Probe probe, ObjectVersion version) {}

  /**
   * Writes a fresh probe create-only. A failure that says nothing of the precondition (unavailable,
   * busy, outcome unknown) is told from a store that rejects create-only writes by one write without
   * a condition of another probe, then a create-only write of a third: rejected again while the
   * plain write landed, the store is unsafe; landed, that probe goes on.
   */
  private Created createFresh(SelfCheckProbes probes) {
    Probe probe = probes.fresh();
    DatastoreException refused;
    try {
      return created(probes, probe);
    } catch (OutcomeUnknownException | DatastoreUnavailableException | DatastoreBusyException e) {
      refused = e;
    }
    Probe plain = probes.fresh();
    try {
      if (store.write(plain.key(), body("plain"), WriteCondition.none(), ObjectMetadata.EMPTY)
          instanceof WriteResult.Written written && versionOrNull(written) != null) {
        probes.holds(plain, written.version());
      }
    } catch (DatastoreUnsafeException e) {
      e.addSuppressed(refused);
      throw e;
    } catch (DatastoreException e) {
      refused.addSuppressed(e);
      throw refused;
    }
    Probe again = probes.fresh();
    try {
      Created second = created(probes, again);
      LOG.info("A create-only write to {} failed, and the next one landed: {}", store.describe(), refused.getMessage());
      return second;
    } catch (OutcomeUnknownException | DatastoreUnavailableException | DatastoreBusyException e) {
      e.addSuppressed(refused);
      throw unsafe(store, again.key(), "it rejects create-only writes: two in a row failed while a write without a"
          + " condition landed (" + e.getMessage() + ")", e);
    }
  }

  private Created created(SelfCheckProbes probes, Probe probe) {
    WriteResult result = store.write(probe.key(), body("create"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
    if (!(result instanceof WriteResult.Written written)) {
      throw unsafe(store, probe.key(), "a create-only write of a fresh probe key failed its precondition");
    }
    return new Created(probe, landed(probes, probe, written));
  }

  /**
   * One round: a race of create-only writes of a fresh probe, then on the winner's version a race
   * of compare-and-swap writes (even racers) against conditional deletes (odd racers).
   */
  private void round(SelfCheckProbes probes, SelfCheckRace race, int round) {
    Probe probe = probes.fresh();
    List<Object> creates = race.run(i -> store.write(probe.key(), body(racer(round, "create", i)),
        WriteCondition.mustNotExist(), ObjectMetadata.EMPTY));
    String createRace = RACERS + " concurrent create-only writes of one fresh key";
    int created = winner(probes, probe, creates, createRace);
    if (created < 0) {
      throw unsafe(store, probe.key(), createRace + " had no winner");
    }
    ObjectVersion base = landed(probes, probe, (WriteResult.Written) creates.get(created));
    readBack(probes, probe, racer(round, "create", created), base, "the probe the winner of " + createRace
        + " had written read back as absent");
    List<Object> outcomes = race.run(i -> i % 2 == 0
        ? store.write(probe.key(), body(racer(round, "swap", i)), WriteCondition.mustMatch(base), ObjectMetadata.EMPTY)
        : store.delete(probe.key(), WriteCondition.mustMatch(base)));
    String swapRace = RACERS / 2 + " concurrent writes and " + RACERS / 2 + " deletes conditional on one version";
    int won = winner(probes, probe, outcomes, swapRace);
    if (won < 0) {
      // a sweep of the probe before the race leaves nothing to swap or delete
      throw probes.sweptOrUnsafe(probe, swapRace + " had no winner");
    }
    if (outcomes.get(won) instanceof WriteResult.Written swapped) {
      ObjectVersion current = landed(probes, probe, swapped);
      readBack(probes, probe, racer(round, "swap", won), current, "the probe the winner of " + swapRace
          + " had written read back as absent");
      probes.remove(probe);
    } else if (store.stat(probe.key()).isPresent()) {
      throw unsafe(store, probe.key(), "the probe the winner of " + swapRace + " had deleted is still there");
    } else {
      probes.gone(probe);
    }
  }

  /**
   * Returns the index of the one racer that won (a write that landed, a delete that deleted), or -1
   * when none did. A racer's {@link DatastoreUnsafeException} is thrown at once; a race with no winner
   * whose racers failed otherwise proves nothing and throws the first failure; several winners are a
   * broken precondition, unless a sweep of the probe between two racers explains them.
   */
  private int winner(SelfCheckProbes probes, Probe probe, List<Object> results, String race) {
    for (Object result : results) {
      if (result instanceof DatastoreUnsafeException unsafe) {
        throw unsafe;
      }
    }
    int[] winners = IntStream.range(0, results.size())
        .filter(i -> results.get(i) instanceof WriteResult.Written || results.get(i) == DeleteResult.DELETED).toArray();
    if (winners.length > 1) {
      long writes = Arrays.stream(winners).filter(i -> results.get(i) instanceof WriteResult.Written).count();
      throw probes.sweptOrUnsafe(probe, race + " had " + winners.length + " winners (" + writes + " writes, "
          + (winners.length - writes) + " deletes), not exactly one");
    }
    if (winners.length == 0) {
      for (Object result : results) {
        if (result instanceof RuntimeException failure) {
          throw failure;
        }
      }
      return -1;
    }
    return winners[0];
  }

  /**
   * Reads {@code probe} back: it must hold the bytes of {@code text} at {@code version}. An absent
   * probe is the failed proof {@code whenAbsent}, which a sweep may explain.
   */
  private void readBack(SelfCheckProbes probes, Probe probe, String text, ObjectVersion version, String whenAbsent) {
    byte[] written = bytes(text);
    ReadResult read;
    try {
      read = store.read(probe.key(), ReadCondition.always(), MAX_PROBE_BYTES);
    } catch (ObjectTooLargeException e) {
      throw unsafe(store, probe.key(), "a probe of " + written.length + " bytes read back as "
          + (e.size() < 0 ? "more than " + MAX_PROBE_BYTES : e.size()) + " bytes");
    }
    if (!(read instanceof ReadResult.Found found)) {
      throw probes.sweptOrUnsafe(probe, whenAbsent);
    }
    ObjectVersion stored = versionOrNull(found.object());
    if (stored == null) {
      throw unsafe(store, probe.key(), "a read of a probe came back with no version: the store does not version"
          + " its objects, so no write could be conditional on one");
    }
    if (!Arrays.equals(found.bytes(), written)) {
      throw unsafe(store, probe.key(), "a probe read back with other bytes than were written (" + written.length
          + " bytes written, " + found.bytes().length + " bytes read)");
    }
    if (!stored.equals(version)) {
      throw unsafe(store, probe.key(), "a probe read back at version " + stored + ", not the version " + version
          + " its write returned");
    }
  }

  /** Returns the version a landed write of {@code probe} gave, now known as the probe's. */
  private ObjectVersion landed(SelfCheckProbes probes, Probe probe, WriteResult.Written written) {
    @Nullable ObjectVersion version = versionOrNull(written);
    if (version == null) {
      throw unsafe(store, probe.key(), "a write that landed came back with no version: the store does not version"
          + " its objects, so no write could be conditional on one");
    }
    probes.holds(probe, version);
    return version;
  }

  /** Returns the version of {@code object}, or null when a store broke the contract and gave none. */
  static @Nullable ObjectVersion versionOrNull(StoredObject object) {
    return object.version();
  }

  /** Returns the version a write answered with, or null when a store broke the contract and gave none. */
  static @Nullable ObjectVersion versionOrNull(WriteResult.Written written) {
    return written.version();
  }

  /** Returns the exception that refuses {@code store} for {@code what}, found on {@code probe}. */
  static DatastoreUnsafeException unsafe(Datastore store, ObjectKey probe, String what) {
    return unsafe(store, probe, what, null);
  }

  private static DatastoreUnsafeException unsafe(Datastore store, ObjectKey probe, String what, @Nullable Throwable cause) {
    return new DatastoreUnsafeException("Cannot write to datastore " + store.identity()
        + ": it does not honour write preconditions (" + what + ", probe key " + probe
        + "); Tierlock refuses to write to it", cause);
  }

  private static String racer(int round, String race, int i) {
    return "round " + round + " " + race + " racer " + i;
  }

  static ObjectBody body(String text) {
    return ObjectBody.of(bytes(text));
  }

  private static byte[] bytes(String text) {
    return ("tierlock self-check: " + text + "\n").getBytes(StandardCharsets.UTF_8);
  }
}
