package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Datastores;
import dev.tierlock.LockOptions;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.ManagedLockfileUnavailableException;
import dev.tierlock.Namespace;
import dev.tierlock.PendingChange;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Any interleaving of 2 to 5 checkouts putting and removing entries (each its own names), with
 * injected faults (lost responses, unavailable stores, throttling, failed fetches, a holder stalled
 * past its ttl while a peer publishes), ends with a shared lockfile equal to applying every
 * acknowledged change in commit order: a change is acknowledged when its run returns, or, if its
 * publish failed, when a later run of the same checkout returns (which replays it).
 */
class LockfileTransactionPropertyTest {

  private static final Namespace NAMESPACE = Namespace.of("prop");
  private static final ObjectKey LOCKFILE = NAMESPACE.key(TierPath.LOCKFILE);
  private static final Predicate<ObjectKey> IS_LOCKFILE = LOCKFILE::equals;

  enum Op { PUT, REMOVE, REFRESH }

  enum Injected { NONE, LOST_RESPONSE, LOST_RESPONSE_AND_READ_BACK, TIMEOUT_BEFORE_APPLY, UNAVAILABLE_BURST, THROTTLE,
    FETCH_FAILS, STALL }

  record Step(int checkout, Op op, int key, Injected fault, int peerOffset) {}

  record Scenario(int checkouts, List<Step> steps) {}

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Injected> faults = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(8, Arbitraries.just(Injected.NONE)),
        net.jqwik.api.Tuple.of(1, Arbitraries.of(Injected.class)));
    return Arbitraries.integers().between(2, 5).flatMap(n -> {
      Arbitrary<Step> step = Combinators.combine(Arbitraries.integers().between(0, n - 1),
          Arbitraries.frequency(net.jqwik.api.Tuple.of(5, Op.PUT), net.jqwik.api.Tuple.of(3, Op.REMOVE),
              net.jqwik.api.Tuple.of(1, Op.REFRESH)),
          Arbitraries.integers().between(0, 2), faults, Arbitraries.integers().between(1, n - 1)).as(Step::new);
      return step.list().ofMinSize(1).ofMaxSize(10).map(steps -> new Scenario(n, steps));
    });
  }

  @Property(tries = 30)
  void everyAcknowledgedChange_isInTheSharedLockfile(@ForAll("scenarios") Scenario scenario) throws IOException {
    Path dir = Files.createTempDirectory("tierlock-property");
    try (FakeRemote remote = FakeRemote.create()) {
      new Run(remote, dir, scenario).play();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** One scenario on one fake remote, with the model of what must be shared. */
  private static final class Run {
    private final FakeRemote remote;
    private final Scenario scenario;
    private final TestClock clock = TestClock.create();
    private final List<TestCheckout> checkouts = new ArrayList<>();
    private final Map<String, String> expected = new LinkedHashMap<>();
    private final List<Map<String, String>> pending = new ArrayList<>();
    private int counter;
    private Injected injected = Injected.NONE;

    Run(FakeRemote remote, Path dir, Scenario scenario) {
      this.remote = remote;
      this.scenario = scenario;
      Datastore shared = Datastores.selfChecked(remote);
      for (int i = 0; i < scenario.checkouts(); i++) {
        checkouts.add(TestCheckout.builder(shared, dir.resolve("c" + i), clock).namespace(NAMESPACE)
            .lockOptions(LockOptions.DEFAULTS).seed(i).build());
        pending.add(new LinkedHashMap<>());
      }
    }

    void play() {
      for (Step step : scenario.steps()) {
        injected = step.fault();
        inject(step);
        execute(step.checkout(), step.op(), step.key());
        remote.faults().clear();
      }
      injected = Injected.NONE;
      for (int i = 0; i < checkouts.size(); i++) {
        execute(i, Op.REFRESH, 0);
      }
      Map<String, String> shared = new LinkedHashMap<>();
      TestCheckout.sharedLockfile(remote, NAMESPACE).entries().forEach((n, e) -> shared.put(n.value(), e.version()));
      assertThat(shared).as("shared lockfile after %s", scenario).isEqualTo(expectedWithoutRemovals());
      for (TestCheckout checkout : checkouts) {
        assertThat(checkout.tierlock().pendingChanges().read()).isEqualTo(PendingChange.None.INSTANCE);
      }
    }

    private void inject(Step step) {
      switch (step.fault()) {
        case NONE -> { }
        case LOST_RESPONSE -> remote.faults().failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.LOSE_RESPONSE);
        case LOST_RESPONSE_AND_READ_BACK -> remote.faults()
            .failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.LOSE_RESPONSE)
            .failNext(DatastoreOperation.STAT, IS_LOCKFILE, 1, Fault.UNAVAILABLE);
        case TIMEOUT_BEFORE_APPLY -> remote.faults().failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.TIMEOUT_BEFORE_APPLY);
        case UNAVAILABLE_BURST -> remote.faults().failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 50, Fault.UNAVAILABLE);
        case THROTTLE -> remote.faults().failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 3, Fault.THROTTLED);
        case FETCH_FAILS -> remote.faults().failNext(DatastoreOperation.READ, IS_LOCKFILE, 1, Fault.UNAVAILABLE);
        case STALL -> {
          int peer = (step.checkout() + step.peerOffset()) % checkouts.size();
          remote.faults().beforeNext(DatastoreOperation.WRITE, IS_LOCKFILE, () -> {
            clock.advance(LockOptions.DEFAULTS.ttl().plusSeconds(1));
            execute(peer, Op.PUT, step.key());
          });
        }
      }
    }

    /** Runs one operation of one checkout and updates the model by how it ended. */
    private void execute(int index, Op op, int key) {
      TestCheckout checkout = checkouts.get(index);
      String name = "@c" + index + "/k" + key;
      String version = "v" + (++counter);
      try {
        TransactionResult result = switch (op) {
          case PUT -> checkout.put(name, version);
          case REMOVE -> checkout.remove(name);
          case REFRESH -> checkout.transaction().refresh();
        };
        assertThat(result.status()).isIn(TransactionStatus.PUBLISHED, TransactionStatus.NO_CHANGE);
        acknowledge(index, op, name, version);
      } catch (ManagedConfigUnpublishedException e) {
        if (op != Op.REFRESH) {
          pending.get(index).put(name, op == Op.PUT ? version : null);
        }
      } catch (ManagedLockfileUnavailableException e) {
        if (injected != Injected.FETCH_FAILS) {
          throw e;
        }
      }
    }

    private void acknowledge(int index, Op op, String name, String version) {
      expected.putAll(pending.get(index));
      pending.get(index).clear();
      if (op != Op.REFRESH) {
        expected.put(name, op == Op.PUT ? version : null);
      }
    }

    private Map<String, String> expectedWithoutRemovals() {
      Map<String, String> out = new LinkedHashMap<>();
      expected.forEach((k, v) -> {
        if (v != null) {
          out.put(k, v);
        }
      });
      return out;
    }
  }
}
