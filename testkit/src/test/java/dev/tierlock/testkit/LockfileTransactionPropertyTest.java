package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockOptions;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileCodec;
import dev.tierlock.LockfileDelta;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.ManagedLockfileUnavailableException;
import dev.tierlock.Namespace;
import dev.tierlock.PendingChange;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionContext;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.jspecify.annotations.Nullable;

/**
 * Any interleaving of 2 to 5 checkouts putting and removing entries, with injected faults (lost
 * responses, unavailable stores, throttling, failed fetches, holders stalled past their ttl while a
 * peer publishes, a lost response or an unapplied write followed by a stall in which a peer changes
 * the very same entry, and processes that die before their write, after it landed, or inside
 * their change and are reopened on the same directories), keeps the shared lockfile in line with
 * a model built in commit order.
 *
 * <p>Every lockfile write that lands is observed, with the pending record of its checkout at that
 * moment (which names exactly what the write carries). The invariants: each write is the version it
 * was built on plus its own change (nothing of anyone else is lost); a write never re-applies a
 * change to an entry after a different change to that entry landed (no revert); a run that returns
 * has every change of its checkout either landed, provably there already, dropped with a warning,
 * or is a removal that found its entry absent in a version of the shared lockfile current during
 * the run (so a peer's later put of that entry stands); a run that fails keeps its change pending
 * (or, for an unknown outcome, has nothing left to replay); and at the end every checkout has
 * nothing pending and the shared lockfile is what the observed writes add up to.
 *
 * <p>The property runs twice: on a remote whose versions are fresh generations (GCS), and on one
 * whose versions are digests of the bytes (S3 ETags), where writing bytes a peer wrote before brings
 * their old version back and a compare-and-swap conditioned on it succeeds again (the ABA case).
 */
class LockfileTransactionPropertyTest {

  private static final Namespace NAMESPACE = Namespace.of("prop");
  private static final ObjectKey LOCKFILE = NAMESPACE.key(TierPath.LOCKFILE);
  private static final Predicate<ObjectKey> IS_LOCKFILE = LOCKFILE::equals;

  enum Op { PUT, REMOVE, REFRESH }

  enum Injected {
    NONE, LOST_RESPONSE, LOST_RESPONSE_AND_READ_BACK, TIMEOUT_BEFORE_APPLY, UNAVAILABLE_BURST, THROTTLE, FETCH_FAILS,
    STALL, LOST_RESPONSE_THEN_PEER, TIMEOUT_THEN_PEER, CRASH_BEFORE_WRITE, CRASH_AFTER_LANDING, CRASH_IN_CHANGE,
    CRASH_AFTER_LANDING_THEN_PEER
  }

  record Step(int checkout, Op op, int key, Injected fault, int peerOffset, Op peerOp) {}

  record Scenario(int checkouts, List<Step> steps) {}

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Injected> faults = Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.just(Injected.NONE)),
        Tuple.of(3, Arbitraries.of(Injected.class)));
    return Arbitraries.integers().between(2, 5).flatMap(n -> {
      Arbitrary<Step> step = Combinators.combine(Arbitraries.integers().between(0, n - 1),
          Arbitraries.frequency(Tuple.of(5, Op.PUT), Tuple.of(3, Op.REMOVE), Tuple.of(1, Op.REFRESH)),
          Arbitraries.integers().between(0, 2), faults, Arbitraries.integers().between(1, n - 1),
          Arbitraries.of(Op.PUT, Op.REMOVE)).as(Step::new);
      return step.list().ofMinSize(1).ofMaxSize(12).map(steps -> new Scenario(n, steps));
    });
  }

  @Property(tries = 100)
  void everyAcknowledgedChange_landsOnce_andNothingIsReverted(@ForAll("scenarios") Scenario scenario) throws IOException {
    play(scenario);
  }

  @Property(tries = 100)
  void everyAcknowledgedChange_landsOnce_andNothingIsReverted_whenEqualBytesGetEqualVersions(
      @ForAll("scenarios") Scenario scenario) throws IOException {
    play(scenario, FakeRemote.Versions.CONTENT_DIGEST);
  }

  /**
   * Seed 8869861670633136750, shrunk. c0's put of k0 fails to publish and stays pending; c0 then
   * removes k1, which is absent, so its run publishes only the replayed k0. That write lands but its
   * answer is lost, and before c0 reads the lockfile back, c1 puts k1 (on top of c0's write). In
   * commit order the removal (made on the version without k1, and still true at c0's own write)
   * comes before c1's put, so the run is acknowledged with k1 holding c1's value: the removal must
   * not be applied over the put, and the model must count it as done although no write carried it.
   */
  @Example
  void removingAnAbsentEntry_thenPeerPutsItAfterTheWriteLanded_keepsThePeersPut() throws IOException {
    Lockfile shared = play(new Scenario(2, List.of(
        new Step(0, Op.PUT, 0, Injected.UNAVAILABLE_BURST, 1, Op.PUT),
        new Step(0, Op.REMOVE, 1, Injected.LOST_RESPONSE_THEN_PEER, 1, Op.PUT))));

    assertThat(shared.entry(ExtensionName.of("@c0/k0")).map(LockfileEntry::version)).contains("v1");
    assertThat(shared.entry(ExtensionName.of("@c0/k1")).map(LockfileEntry::version)).contains("v3");
  }

  /** Plays {@code scenario} on a fresh fake remote, checks it, and returns the shared lockfile it ends with. */
  private static Lockfile play(Scenario scenario) throws IOException {
    return play(scenario, FakeRemote.Versions.GENERATIONS);
  }

  /** Plays {@code scenario} on a fresh fake remote with {@code versions}, checks it, and returns the shared lockfile. */
  private static Lockfile play(Scenario scenario, FakeRemote.Versions versions) throws IOException {
    Path dir = Files.createTempDirectory("tierlock-property");
    try (FakeRemote remote = FakeRemote.builder().versions(versions).build()) {
      new Run(remote, dir, scenario).play();
      return TestCheckout.sharedLockfile(remote, NAMESPACE);
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** What a test throws from a fault hook to play a process that dies at that point. */
  static final class Crash extends Error {
    private static final long serialVersionUID = 1L;

    Crash() {
      super("the process died here");
    }
  }

  /**
   * One change a checkout made: its id, its entry, what it set (null for a removal), and whether it
   * is a removal that found nothing to remove while the shared lockfile lacked the entry at some
   * commit since its run began (see {@code Run.settleOwed}).
   */
  record Change(long id, String name, @Nullable String version, boolean removedAbsent) {}

  /** One scenario on one fake remote, with the model of what must be shared, in commit order. */
  private static final class Run {
    private final FakeRemote remote;
    private final Path dir;
    private final Scenario scenario;
    private final TestClock clock = TestClock.create();
    private final List<TestCheckout> checkouts = new ArrayList<>();
    private final List<ObservedDatastore> observed = new ArrayList<>();
    /** Per checkout: the latest change it made to each entry, which its pending record and writes carry. */
    private final List<Map<String, Change>> latest = new ArrayList<>();
    /** Per checkout: the changes not yet known to have landed. */
    private final List<Set<Change>> owed = new ArrayList<>();
    /** Per entry: the ids of the changes that landed on it, in commit order. */
    private final Map<String, List<Long>> landings = new HashMap<>();
    /** Every version of the shared lockfile, in commit order, starting with the absent (empty) one. */
    private final List<Lockfile> commits = new ArrayList<>(List.of(Lockfile.EMPTY));
    private Lockfile model = Lockfile.EMPTY;
    private long counter;
    private boolean fetchMayFail;

    Run(FakeRemote remote, Path dir, Scenario scenario) {
      this.remote = remote;
      this.dir = dir;
      this.scenario = scenario;
      for (int i = 0; i < scenario.checkouts(); i++) {
        observed.add(null);
        checkouts.add(null);
        latest.add(new HashMap<>());
        owed.add(new HashSet<>());
        open(i);
      }
    }

    private void open(int index) {
      ObservedDatastore store = new ObservedDatastore(remote, LOCKFILE, commit -> landed(index, commit));
      observed.set(index, store);
      checkouts.set(index, TestCheckout.builder(store, dir.resolve("c" + index), clock).namespace(NAMESPACE)
          .lockOptions(LockOptions.DEFAULTS).seed(index).build());
    }

    /** Plays a process that died: nothing more it sends reaches the store, and it is reopened later. */
    private Crash die(int index) {
      observed.get(index).die();
      return new Crash();
    }

    void play() {
      for (Step step : scenario.steps()) {
        fetchMayFail = step.fault() == Injected.FETCH_FAILS;
        inject(step);
        String name = "@c" + step.checkout() + "/k" + step.key();
        execute(step.checkout(), step.op(), name, step.fault() == Injected.CRASH_IN_CHANGE);
        remote.faults().clear();
        fetchMayFail = false;
      }
      for (int i = 0; i < checkouts.size(); i++) {
        execute(i, Op.REFRESH, "@c" + i + "/k0", false);
      }
      for (int i = 0; i < checkouts.size(); i++) {
        assertThat(checkouts.get(i).tierlock().pendingChanges().read()).as("pending record of c%s after %s", i, scenario)
            .isEqualTo(PendingChange.None.INSTANCE);
        assertThat(owed.get(i)).as("changes of c%s neither landed nor dropped after %s", i, scenario).isEmpty();
      }
      assertThat(TestCheckout.sharedLockfile(remote, NAMESPACE)).as("shared lockfile after %s", scenario).isEqualTo(model);
    }

    private void inject(Step step) {
      int stalled = step.checkout();
      int peer = (stalled + step.peerOffset()) % checkouts.size();
      String name = "@c" + stalled + "/k" + step.key();
      switch (step.fault()) {
        case NONE, CRASH_IN_CHANGE -> { }
        case LOST_RESPONSE -> remote.faults().failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.LOSE_RESPONSE);
        case LOST_RESPONSE_AND_READ_BACK -> remote.faults()
            .failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.LOSE_RESPONSE)
            .failNext(DatastoreOperation.STAT, IS_LOCKFILE, 1, Fault.UNAVAILABLE);
        case TIMEOUT_BEFORE_APPLY -> remote.faults().failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.TIMEOUT_BEFORE_APPLY);
        case UNAVAILABLE_BURST -> remote.faults().failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 50, Fault.UNAVAILABLE);
        case THROTTLE -> remote.faults().failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 3, Fault.THROTTLED);
        case FETCH_FAILS -> remote.faults().failNext(DatastoreOperation.READ, IS_LOCKFILE, 1, Fault.UNAVAILABLE);
        case STALL -> remote.faults().beforeNext(DatastoreOperation.WRITE, IS_LOCKFILE, () -> {
          stall();
          execute(peer, Op.PUT, "@c" + peer + "/k" + step.key(), false);
        });
        case LOST_RESPONSE_THEN_PEER -> remote.faults()
            .failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.LOSE_RESPONSE)
            .beforeNext(DatastoreOperation.STAT, IS_LOCKFILE, () -> {
              stall();
              execute(peer, step.peerOp(), name, false);
            });
        case TIMEOUT_THEN_PEER -> remote.faults()
            .failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.TIMEOUT_BEFORE_APPLY)
            .beforeNext(DatastoreOperation.STAT, IS_LOCKFILE, () -> {
              stall();
              execute(peer, step.peerOp(), name, false);
            });
        case CRASH_BEFORE_WRITE -> remote.faults().beforeNext(DatastoreOperation.WRITE, IS_LOCKFILE, () -> {
          throw die(stalled);
        });
        case CRASH_AFTER_LANDING -> remote.faults()
            .failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.LOSE_RESPONSE)
            .beforeNext(DatastoreOperation.STAT, IS_LOCKFILE, () -> {
              throw die(stalled);
            });
        case CRASH_AFTER_LANDING_THEN_PEER -> remote.faults()
            .failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.LOSE_RESPONSE)
            .beforeNext(DatastoreOperation.STAT, IS_LOCKFILE, () -> {
              stall();
              execute(peer, step.peerOp(), name, false);
              throw die(stalled);
            });
      }
    }

    private void stall() {
      clock.advance(LockOptions.DEFAULTS.ttl().plusSeconds(1));
    }

    /** Runs one operation of one checkout and checks how it ended against the model. */
    private void execute(int index, Op op, String name, boolean crashInChange) {
      TestCheckout checkout = checkouts.get(index);
      long id = ++counter;
      String version = op == Op.PUT ? "v" + id : null;
      int start = commits.size() - 1;
      Consumer<TransactionContext> change = tx -> {
        ExtensionName entry = ExtensionName.of(name);
        boolean removedAbsent = version == null && tx.repository().entry(entry).isEmpty()
            && commits.subList(start, commits.size()).stream().anyMatch(l -> l.entry(entry).isEmpty());
        Change made = new Change(id, name, version, removedAbsent);
        latest.get(index).put(name, made);
        owed.get(index).add(made);
        if (version != null) {
          tx.repository().writeEntry(ExtensionName.of(name), LockfileEntry.builder(version, clock.instant()).build());
        } else {
          tx.repository().removeEntry(ExtensionName.of(name));
        }
        if (crashInChange) {
          throw die(index);
        }
      };
      try {
        TransactionResult result = op == Op.REFRESH ? checkout.transaction().refresh() : checkout.transaction().run(change);
        assertThat(result.status()).isIn(TransactionStatus.PUBLISHED, TransactionStatus.NO_CHANGE);
        settleOwed(index, result.warnings());
      } catch (ManagedConfigUnpublishedException e) {
        assertThat(checkout.tierlock().pendingChanges().read()).as("a failed publish keeps its change")
            .isInstanceOfSatisfying(PendingChange.Recorded.class, r -> assertThat(r.delta()).isEqualTo(e.delta()));
        Set<ExtensionName> kept = e.delta().names();
        owed.get(index).removeIf(c -> !kept.contains(ExtensionName.of(c.name())));
      } catch (LockfileOutcomeUnknownException e) {
        assertThat(checkout.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
        owed.get(index).clear();
      } catch (ManagedLockfileUnavailableException e) {
        if (!fetchMayFail) {
          throw e;
        }
      } catch (Crash e) {
        PendingChange left = checkout.tierlock().pendingChanges().read();
        Set<ExtensionName> kept = new HashSet<>();
        if (left instanceof PendingChange.Recorded recorded) {
          kept.addAll(recorded.delta().names());
          if (recorded.isIncomplete()) {
            kept.add(ExtensionName.of(name));
          }
        }
        owed.get(index).removeIf(c -> !kept.contains(ExtensionName.of(c.name())));
        checkout.close();
        open(index);
      }
    }

    /**
     * A run returned: each change of its checkout not yet seen in a landed write was superseded by a
     * later change of the same checkout to the same entry, was dropped with a warning naming it, is
     * there already, or is a removal that found its entry absent.
     *
     * <p>The last needs care: such a removal changes nothing, so no write carries it and the shared
     * lockfile may hold the entry again by the time the run returns (a peer put it after the run's
     * fetch, for instance while the run's own write went unanswered). That is correct, and not a lost
     * acknowledgement, only if the removal comes before that put in commit order: the version the
     * run fetched lacked the entry. The fetch itself is not observed, but it lies between the run's
     * start and its change, so the removal is counted as done only if the checkout found nothing to
     * remove and the shared lockfile lacked the entry at some commit in that window (the one current
     * when the run began, or a later one before its change). A checkout that removed nothing while
     * every commit in the window held the entry (a stale fetch, or a local copy that hides an
     * acknowledged put) still fails here, since that put landed before the removal in commit order.
     */
    private void settleOwed(int index, List<String> warnings) {
      for (Change change : owed.get(index)) {
        if (latest.get(index).get(change.name()).id() > change.id()) {
          continue;
        }
        boolean dropped = warnings.stream().anyMatch(w -> w.startsWith("Dropped the unpublished change to " + change.name() + " "));
        boolean there = Objects.equals(model.entry(ExtensionName.of(change.name())).map(LockfileEntry::version).orElse(null),
            change.version());
        if (!dropped && !there && !change.removedAbsent()) {
          fail("Change %s of c%s was acknowledged but never landed (warnings %s) in %s", change, index, warnings, scenario);
        }
      }
      owed.get(index).clear();
    }

    /** A lockfile write of checkout {@code index} with commit {@code commit} landed. */
    private void landed(int index, String commit) {
      PendingChange record = checkouts.get(index).tierlock().pendingChanges().read();
      assertThat(record).as("the record of the write of commit %s", commit).isInstanceOfSatisfying(PendingChange.Recorded.class,
          r -> assertThat(r.attempt()).hasValueSatisfying(a -> assertThat(a.commitId()).isEqualTo(commit)));
      LockfileDelta delta = ((PendingChange.Recorded) record).delta();
      Lockfile written = LockfileCodec.decode(remote.peek(LOCKFILE).orElseThrow(), "shared");
      assertThat(written).as("write of commit %s by c%s is its base plus its change, in %s", commit, index, scenario)
          .isEqualTo(delta.applyTo(model));
      for (ExtensionName name : delta.names()) {
        Change change = latest.get(index).get(name.value());
        String target = delta.target(name).map(LockfileEntry::version).orElse(null);
        assertThat(change).as("a change of c%s to %s", index, name).isNotNull();
        assertThat(target).as("c%s writes its latest change to %s", index, name).isEqualTo(change.version());
        List<Long> history = landings.computeIfAbsent(name.value(), n -> new ArrayList<>());
        long last = history.isEmpty() ? -1 : history.get(history.size() - 1);
        if (history.contains(change.id()) && last != change.id()) {
          fail("Write of commit %s by c%s re-applies change %s to %s after change %s landed, in %s", commit, index, change,
              name, last, scenario);
        }
        if (last != change.id()) {
          history.add(change.id());
        }
        owed.get(index).removeIf(c -> c.name().equals(name.value()) && c.id() <= change.id());
      }
      model = written;
      commits.add(written);
    }
  }
}
