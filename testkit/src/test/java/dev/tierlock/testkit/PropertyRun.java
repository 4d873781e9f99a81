package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockOptions;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.ManagedLockfileUnavailableException;
import dev.tierlock.Namespace;
import dev.tierlock.PendingChange;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionContext;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Injected;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Op;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Scenario;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Step;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Planned;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One scenario of {@link LockfileTransactionPropertyTest} on one fake remote: the checkouts, each on
 * its own stack (a {@link MortalDatastore} to die in, a {@link FaultyDatastore} of its own for the
 * faults meant for it, a {@link HistoryRecorder} view), the steps with their faults, the final
 * settling, and the {@link TransactionModel} that judges every write and every run. Not
 * thread-safe: one thread plays it.
 */
final class PropertyRun {

  static final Namespace NAMESPACE = Namespace.of("prop");
  static final ObjectKey LOCKFILE = NAMESPACE.key(TierPath.LOCKFILE);
  private static final Predicate<ObjectKey> IS_LOCKFILE = LOCKFILE::equals;
  private static final int MANY = 60;

  /** One checkout: its stack, its settings and its current instance. */
  private final class Slot {
    final int index;
    final FaultyDatastore faults;
    final AtomicLong commits = new AtomicLong();
    final PublishFailurePolicy policy;
    final int attempts;
    MortalDatastore process;
    TestCheckout checkout;

    Slot(int index, PublishFailurePolicy policy, int attempts) {
      this.index = index;
      this.faults = FaultyDatastore.wrap(recorder.view(index));
      this.policy = policy;
      this.attempts = attempts;
      open();
    }

    void open() {
      process = new MortalDatastore(faults);
      checkout = TestCheckout.builder(process, dir.resolve("c" + index), clock).namespace(NAMESPACE)
          .lockOptions(LockOptions.DEFAULTS).publishFailurePolicy(policy).maxPublishAttempts(attempts).seed(index)
          .commitIds(() -> String.format("c%d-%013d", index, commits.incrementAndGet()))
          .deferSelfCheck().build();
    }
  }

  private final Scenario scenario;
  private final Path dir;
  private final HistoryRecorder recorder;
  private final TransactionModel model;
  private final TestClock clock = TestClock.create();
  private final List<Slot> slots = new ArrayList<>();
  private long versions;
  private int runs;
  private long reportedSoFar;

  PropertyRun(FakeRemote remote, Path dir, Scenario scenario) {
    this.scenario = scenario;
    this.dir = dir;
    this.recorder = new HistoryRecorder(remote, LOCKFILE);
    this.model = new TransactionModel(recorder, scenario.checkouts().size(),
        c -> slots.get(c).checkout.transaction().pending(), scenario.toString());
    recorder.onLanded(model::landed);
    for (int i = 0; i < scenario.checkouts().size(); i++) {
      LockfileTransactionPropertyTest.Checkout config = scenario.checkouts().get(i);
      slots.add(new Slot(i, config.policy(), config.attempts()));
    }
  }

  /** Plays every step, settles every checkout, and checks the end; returns how many runs were made. */
  int play() {
    for (Step step : scenario.steps()) {
      Slot slot = slots.get(step.checkout());
      inject(slot, step);
      if (step.fault() == Injected.PEER_BURST_BEFORE) {
        burst(peerOf(step), step.burst());
      }
      execute(slot, step.op(), step.edits(), step.fault());
      slots.forEach(s -> s.faults.faults().clear());
    }
    settleAll();
    return runs;
  }

  private Slot peerOf(Step step) {
    return slots.get((step.checkout() + step.peer()) % slots.size());
  }

  private void inject(Slot slot, Step step) {
    Faults faults = slot.faults.faults();
    Slot peer = peerOf(step);
    switch (step.fault()) {
      case NONE, PEER_BURST_BEFORE, CRASH_IN_CHANGE, SLOW_CHANGE -> { }
      case LOST_ANSWER -> faults.failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.LOSE_RESPONSE);
      case TIMEOUT_BEFORE_APPLY -> faults.failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.TIMEOUT_BEFORE_APPLY);
      case LOST_ANSWER_NO_READBACK, UNAPPLIED_NO_READBACK -> {
        noReadBacks(faults, null, 0);
        faults.failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1,
            step.fault() == Injected.LOST_ANSWER_NO_READBACK ? Fault.LOSE_RESPONSE : Fault.TIMEOUT_BEFORE_APPLY);
      }
      case LOST_ANSWER_NO_READBACK_THEN_BURST -> {
        noReadBacks(faults, peer, step.burst());
        faults.failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1,
            step.burst() % 2 == 0 ? Fault.LOSE_RESPONSE : Fault.TIMEOUT_BEFORE_APPLY);
      }
      case UNAVAILABLE_BURST -> faults.failNext(DatastoreOperation.WRITE, IS_LOCKFILE, MANY, Fault.UNAVAILABLE);
      case THROTTLE -> faults.failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 3, Fault.THROTTLED);
      case FETCH_FAILS -> faults.failNext(DatastoreOperation.READ, IS_LOCKFILE, 1, Fault.UNAVAILABLE);
      case STALL_PEER -> faults.beforeNext(DatastoreOperation.WRITE, IS_LOCKFILE, () -> {
        stall();
        execute(peer, Op.RUN, step.peerEdits(), Injected.NONE);
      });
      case LOST_ANSWER_STALL_PEER, UNAPPLIED_STALL_PEER -> {
        faults.failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1,
            step.fault() == Injected.LOST_ANSWER_STALL_PEER ? Fault.LOSE_RESPONSE : Fault.TIMEOUT_BEFORE_APPLY);
        faults.beforeNext(DatastoreOperation.STAT, IS_LOCKFILE, () -> {
          stall();
          execute(peer, Op.RUN, step.peerEdits(), Injected.NONE);
        });
      }
      case CRASH_BEFORE_WRITE -> faults.beforeNext(DatastoreOperation.WRITE, IS_LOCKFILE, () -> {
        throw slot.process.die();
      });
      case CRASH_AFTER_WRITE -> faults.afterNext(DatastoreOperation.WRITE, IS_LOCKFILE, () -> {
        throw slot.process.die();
      });
      case CRASH_AT_READBACK -> {
        faults.failNext(DatastoreOperation.WRITE, IS_LOCKFILE, 1, Fault.LOSE_RESPONSE);
        faults.beforeNext(DatastoreOperation.STAT, IS_LOCKFILE, () -> {
          throw slot.process.die();
        });
      }
    }
  }

  /** Makes every read-back after the next lockfile write fail, after {@code peer} made {@code burst} commits. */
  private void noReadBacks(Faults faults, Slot peer, int burst) {
    faults.beforeNext(DatastoreOperation.WRITE, IS_LOCKFILE, () -> {
      faults.failNext(DatastoreOperation.READ, IS_LOCKFILE, MANY, Fault.UNAVAILABLE);
      if (peer != null) {
        faults.beforeNext(DatastoreOperation.STAT, IS_LOCKFILE, () -> {
          stall();
          burst(peer, burst);
        });
      }
      faults.failNext(DatastoreOperation.STAT, IS_LOCKFILE, MANY, Fault.UNAVAILABLE);
    });
  }

  private void burst(Slot peer, int commits) {
    for (int i = 0; i < commits; i++) {
      execute(peer, Op.RUN, List.of(new Planned(true, "@c" + peer.index + "/k" + (i % 2))), Injected.NONE);
    }
  }

  private void stall() {
    clock.advance(LockOptions.DEFAULTS.ttl().plusSeconds(1));
  }

  /** Runs one operation of one checkout and has the model judge how it ended. */
  private void execute(Slot slot, Op op, List<Planned> planned, Injected fault) {
    int c = slot.index;
    runs++;
    long firstEdit = model.runStarting(c);
    int readMark = recorder.readMark();
    Optional<PendingChange> before = slot.checkout.transaction().pending();
    Consumer<TransactionContext> change = tx -> {
      Map<String, Optional<String>> start = new LinkedHashMap<>();
      for (Planned edit : planned) {
        ExtensionName name = ExtensionName.of(edit.name());
        start.putIfAbsent(edit.name(), tx.entry(name).map(LockfileEntry::version));
        if (edit.put()) {
          tx.put(name, LockfileEntry.builder("e" + versions++, clock.instant()).build());
        } else {
          tx.remove(name);
        }
      }
      if (op == Op.NESTED_THROWS) {
        try {
          tx.run(inner -> {
            inner.put(ExtensionName.of(planned.get(0).name()), LockfileEntry.builder("never", clock.instant()).build());
            throw new IllegalStateException("the nested change failed");
          });
        } catch (IllegalStateException expected) {
          // undone: the model never hears of it
        }
      }
      if (fault == Injected.SLOW_CHANGE) {
        clock.advance(Duration.ofSeconds(121));
      }
      if (fault == Injected.CRASH_IN_CHANGE) {
        throw slot.process.die();
      }
      if (op == Op.THROWS) {
        throw new IllegalStateException("the change failed");
      }
      Map<String, Optional<String>> after = new LinkedHashMap<>();
      start.keySet().forEach(n -> after.put(n, tx.entry(ExtensionName.of(n)).map(LockfileEntry::version)));
      model.changeReturned(c, start, after, recorder.lastRead(c));
    };
    TransactionModel.Ending ending;
    try {
      TransactionResult result = switch (op) {
        case REFRESH -> slot.checkout.transaction().refresh();
        case REAPPLY -> slot.checkout.transaction().reapplyPending();
        default -> slot.checkout.transaction().run(change);
      };
      if (result.status() == TransactionStatus.DEFERRED) {
        assertThat(slot.policy).as("only the defer policy defers").isEqualTo(PublishFailurePolicy.DEFER);
        assertThat(slot.checkout.transaction().pending()).as("a deferred change is kept").hasValueSatisfying(p ->
            assertThat(p.state()).isEqualTo(PendingChange.State.UNPUBLISHED));
      } else if (op == Op.REFRESH) {
        assertThat(slot.checkout.transaction().pending()).as("refresh leaves the record as it was").isEqualTo(before);
      } else {
        assertThat(slot.checkout.transaction().pending()).as("c%s's record after %s", c, result.status()).isEmpty();
      }
      assertThat(op).as("a throwing change never returns").isNotEqualTo(Op.THROWS);
      ending = new TransactionModel.Ending(result.status().name(), dropped(result.warnings()), List.of(), false, true);
    } catch (LockfileConflictException e) {
      List<TransactionModel.Dropped> conflicts = conflictsOf(e);
      ending = new TransactionModel.Ending("conflict " + conflicts, dropped(e.warnings()), conflicts, false, false);
    } catch (ManagedConfigUnpublishedException e) {
      assertThat(slot.policy).isEqualTo(PublishFailurePolicy.THROW);
      assertThat(slot.checkout.transaction().pending()).as("an unpublished change is kept").hasValueSatisfying(p -> {
        assertThat(p.state()).isEqualTo(PendingChange.State.UNPUBLISHED);
        assertThat(p.delta()).isEqualTo(e.delta());
      });
      ending = new TransactionModel.Ending("unpublished", dropped(e.warnings()), conflictsOf(e), false, false);
    } catch (LockfileOutcomeUnknownException e) {
      assertThat(slot.checkout.transaction().pending()).as("a change in doubt is kept").hasValueSatisfying(p -> {
        assertThat(p.state()).isIn(PendingChange.State.IN_FLIGHT, PendingChange.State.OUTCOME_UNKNOWN)
            .isEqualTo(e.pending().state());
        assertThat(p.delta()).isEqualTo(e.delta());
      });
      ending = new TransactionModel.Ending("outcome unknown " + e.pending().state(), dropped(e.warnings()),
          conflictsOf(e), false, false);
    } catch (ManagedLockfileUnavailableException e) {
      assertThat(fault).as("unavailable only when a fetch was failed on purpose: %s", e.getMessage())
          .isEqualTo(Injected.FETCH_FAILS);
      assertThat(slot.checkout.transaction().pending()).as("a failed fetch changes no record").isEqualTo(before);
      ending = new TransactionModel.Ending("unavailable", List.of(), List.of(), false, false);
    } catch (IllegalStateException e) {
      if (op != Op.THROWS || !e.getMessage().equals("the change failed")) {
        throw e;
      }
      assertThat(slot.checkout.transaction().pending()).as("a change that throws keeps nothing").isEqualTo(before);
      ending = new TransactionModel.Ending("change threw", List.of(), List.of(), false, false);
    } catch (MortalDatastore.Crash e) {
      assertThat(fault.name()).startsWith("CRASH_");
      slot.checkout.close();
      slot.open();
      ending = new TransactionModel.Ending("crash", List.of(), List.of(), true, false);
    }
    model.runEnded(c, ending, firstEdit, readMark);
    long unreported = model.unreportedDrops();
    OUTCOMES.merge(ending.what().replaceAll(" \\[.*", "") + (ending.droppedByWarning().isEmpty() ? "" : " +dropped-warning")
        + (unreported > reportedSoFar ? " +dropped-unreported" : ""), 1L, Long::sum);
    reportedSoFar = unreported;
  }

  /** How runs ended, over every scenario of the JVM: to see what the property reached. */
  static final Map<String, Long> OUTCOMES = new java.util.concurrent.ConcurrentSkipListMap<>();

  /** Returns the conflicts a run's exception names: its own, or those of a conflict it carries as suppressed. */
  private static List<TransactionModel.Dropped> conflictsOf(Throwable thrown) {
    List<TransactionModel.Dropped> out = new ArrayList<>();
    List<Throwable> all = new ArrayList<>(List.of(thrown));
    all.addAll(List.of(thrown.getSuppressed()));
    for (Throwable t : all) {
      if (t instanceof LockfileConflictException conflict) {
        conflict.conflicts().forEach(x -> out.add(new TransactionModel.Dropped(x.name().value(),
            x.ours().map(LockfileEntry::version).orElse(null), x.theirs().map(LockfileEntry::version).orElse(null))));
      }
    }
    return out;
  }

  private static List<String> dropped(List<String> warnings) {
    List<String> names = new ArrayList<>();
    for (String warning : warnings) {
      if (warning.startsWith("Dropped the unpublished change to ")) {
        String rest = warning.substring("Dropped the unpublished change to ".length());
        names.add(rest.substring(0, rest.indexOf(' ')));
      }
    }
    return names;
  }

  /** Settles every checkout (re-applying a change in doubt, never discarding one), then checks the end. */
  private void settleAll() {
    slots.forEach(s -> s.faults.faults().clear());
    for (int round = 0; round < 6; round++) {
      for (Slot slot : slots) {
        Optional<PendingChange> pending = slot.checkout.transaction().pending();
        if (pending.isPresent()) {
          execute(slot, pending.get().state() == PendingChange.State.OUTCOME_UNKNOWN ? Op.REAPPLY : Op.RUN, List.of(),
              Injected.NONE);
        }
      }
    }
    for (Slot slot : slots) {
      assertThat(slot.checkout.transaction().pending()).as("c%s's record after settling, in %s", slot.index, scenario)
          .isEmpty();
      assertThat(model.outstanding(slot.index)).as("c%s's changes neither landed nor dropped, in %s", slot.index,
          scenario).isEmpty();
      assertThat(model.awaitingReport(slot.index)).as("c%s's changes dropped by a run that died and never reported"
          + " since, in %s", slot.index, scenario).isEmpty();
    }
    HistoryRecorder.Version last = recorder.version(recorder.current());
    assertThat(slots.get(0).checkout.tierlock().snapshot()).as("the shared lockfile is the last write").isEqualTo(
        last.lockfile());
    for (Slot slot : slots) {
      slot.checkout.close();
    }
  }

  /** Returns the history's last version: what the store holds now. */
  HistoryRecorder.Version last() {
    return recorder.version(recorder.current());
  }
}
