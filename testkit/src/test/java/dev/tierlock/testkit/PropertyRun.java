package dev.tierlock.testkit;

import dev.tierlock.CommitMode;
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
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Delivery;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Injected;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Op;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Scenario;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Step;
import dev.tierlock.testkit.LockfileTransactionPropertyTest.Planned;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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
import org.jspecify.annotations.Nullable;

/**
 * One scenario of {@link LockfileTransactionPropertyTest} on one fake remote: the checkouts, each on
 * its own stack (a {@link MortalDatastore} to die in, a {@link FaultyDatastore} of its own for the
 * faults meant for it, a {@link Wire} that captures every lockfile write request as it leaves the
 * stack and can hold one back in the network, a {@link HistoryRecorder} view), the steps with their
 * faults, the final settling, and the {@link TransactionModel} that judges every write and every
 * run. Not thread-safe: one thread plays it.
 */
final class PropertyRun {

  static final Namespace NAMESPACE = Namespace.of("prop");
  static final ObjectKey LOCKFILE = NAMESPACE.key(TierPath.LOCKFILE);
  private static final Predicate<ObjectKey> IS_LOCKFILE = LOCKFILE::equals;
  private static final int MANY = 60;

  /** One checkout: its stack, its settings and its current instance. */
  private final class Slot {
    final int index;
    final Wire wire;
    final FaultyDatastore faults;
    final AtomicLong commits = new AtomicLong();
    final PublishFailurePolicy policy;
    final int attempts;
    final CommitMode mode;
    MortalDatastore process;
    TestCheckout checkout;

    Slot(int index, PublishFailurePolicy policy, int attempts, CommitMode mode) {
      this.index = index;
      this.mode = mode;
      this.wire = new Wire(index, recorder.view(index));
      this.faults = FaultyDatastore.wrap(wire);
      this.policy = policy;
      this.attempts = attempts;
      open();
    }

    void open() {
      process = new MortalDatastore(faults);
      checkout = TestCheckout.builder(heard(index, process), dir.resolve("c" + index), clock).namespace(NAMESPACE)
          .lockOptions(LockOptions.DEFAULTS).publishFailurePolicy(policy).maxPublishAttempts(attempts).commitMode(mode).seed(index)
          .commitIds(() -> String.format("c%d-%013d", index, commits.incrementAndGet()))
          .deferSelfCheck().build();
    }
  }

  /**
   * Returns {@code store} as checkout {@code index} reaches it, telling the recorder each lockfile
   * write whose landing the checkout heard (its answer reached it through every fault).
   */
  private Datastore heard(int index, Datastore store) {
    return new ForwardingDatastore() {
      @Override
      protected Datastore delegate() {
        return store;
      }

      @Override
      public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        WriteResult result = store.write(key, body, condition, metadata);
        if (key.equals(LOCKFILE) && result instanceof WriteResult.Written) {
          recorder.acknowledged(index, metadata.get(ObjectMetadata.COMMIT_ID).orElse(""));
        }
        return result;
      }

      @Override
      public void close() {
        store.close();
      }
    };
  }

  /**
   * The network between one checkout's stack and the store: it captures every lockfile write
   * request as it is sent ({@link TransactionModel#sending}), and holds the first one back once
   * armed: the checkout hears "outcome unknown", and the request reaches the store later, when its
   * {@link Delivery} says, exactly as it was sent (bytes, precondition, metadata). A request held
   * back outlives the process that sent it. Closing it closes nothing.
   */
  private final class Wire extends ForwardingDatastore {
    private final int index;
    private final Datastore store;
    private @Nullable Step armed;
    private int armedAt;

    Wire(int index, Datastore store) {
      this.index = index;
      this.store = store;
    }

    /** Holds the next lockfile write back, as {@code step} (number {@code at}) says; until {@link #disarm()}. */
    void arm(Step step, int at) {
      armed = step;
      armedAt = at;
    }

    void disarm() {
      armed = null;
    }

    @Override
    protected Datastore delegate() {
      return store;
    }

    @Override
    public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
      if (key.equals(LOCKFILE)) {
        deliverDue(index, Delivery.BEFORE_READBACK, Delivery.IN_PEER_RUN);
      }
      return store.read(key, condition, maxBytes);
    }

    @Override
    public Optional<StoredObject> stat(ObjectKey key) {
      if (key.equals(LOCKFILE)) {
        deliverDue(index, Delivery.BEFORE_READBACK, Delivery.IN_PEER_RUN);
      }
      return store.stat(key);
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      if (!key.equals(LOCKFILE)) {
        return store.write(key, body, condition, metadata);
      }
      byte[] bytes = bytesOf(body);
      deliverDue(index, Delivery.BEFORE_NEXT_SEND);
      TransactionModel.Send send = model.sending(index, metadata.get(ObjectMetadata.COMMIT_ID).orElse(""));
      Step step = armed;
      if (step != null) {
        armed = null;
        send.delayed = true;
        held.add(new Held(this, send, bytes, condition, metadata, step, armedAt + step.later(), recorder.current()));
        count("delayed write: held back");
        trace("held back %s of c%s (%s, delivery %s)", send.commitId, index, send.record, step.delivery());
        if (step.fault() == Injected.DELAYED_WRITE_THEN_TIMEOUTS) {
          slots.get(index).faults.faults().failNext(DatastoreOperation.WRITE, IS_LOCKFILE, MANY,
              Fault.TIMEOUT_BEFORE_APPLY);
        }
        throw new OutcomeUnknownException("Cannot write " + key + ": the request timed out (held back by the property;"
            + " it may still arrive)", null);
      }
      return model.through(send, () -> store.write(key, ObjectBody.of(bytes), condition, metadata));
    }

    /** Delivers {@code h}, held back here: it reaches the store as it was sent. */
    WriteResult deliver(Held h) {
      return model.through(h.send, () -> store.write(LOCKFILE, ObjectBody.of(h.bytes), h.condition, h.metadata));
    }

    @Override
    public void close() {
      // the remote belongs to the property
    }
  }

  /** A lockfile write request held back in the network. */
  private record Held(Wire wire, TransactionModel.Send send, byte[] bytes, WriteCondition condition,
      ObjectMetadata metadata, Step step, int atStep, int heldAt) {}

  private final Scenario scenario;
  private final FakeRemote remote;
  /** The requests held back in the network, oldest first. */
  private final List<Held> held = new ArrayList<>();
  private final Path dir;
  private final HistoryRecorder recorder;
  private final TransactionModel model;
  private final TestClock clock = TestClock.create();
  private final List<Slot> slots = new ArrayList<>();
  /** The checkouts whose run is under way on this thread (a hook runs a peer inside another's run). */
  private final java.util.Set<Integer> running = new java.util.HashSet<>();
  private long versions;
  private int runs;
  private long reportedSoFar;

  PropertyRun(FakeRemote remote, Path dir, Scenario scenario) {
    this.scenario = scenario;
    this.remote = remote;
    this.dir = dir;
    this.recorder = new HistoryRecorder(remote, LOCKFILE);
    this.model = new TransactionModel(recorder, scenario.checkouts().size(),
        c -> slots.get(c).checkout.transaction().pending(), scenario.toString());
    recorder.onLanded(model::landed);
    for (int i = 0; i < scenario.checkouts().size(); i++) {
      LockfileTransactionPropertyTest.Checkout config = scenario.checkouts().get(i);
      slots.add(new Slot(i, config.policy(), config.attempts(), config.mode()));
    }
  }

  /** Plays every step, settles every checkout, and checks the end; returns how many runs were made. */
  int play() {
    for (int i = 0; i < scenario.steps().size(); i++) {
      Step step = scenario.steps().get(i);
      trace("step %s: %s", i, step);
      deliverAtStep(i);
      Slot slot = slots.get(step.checkout());
      inject(slot, step, i);
      if (step.fault() == Injected.PEER_BURST_BEFORE) {
        burst(peerOf(step), step.burst());
      }
      execute(slot, step.op(), step.edits(), step.fault());
      slots.forEach(s -> {
        s.faults.faults().clear();
        s.wire.disarm();
      });
    }
    deliverAtStep(Integer.MAX_VALUE);
    held.forEach(h -> count("delayed write: never delivered"));
    settleAll();
    return runs;
  }

  /** Delivers the held requests due at the start of step {@code step}, oldest first. */
  private void deliverAtStep(int step) {
    for (Held h : List.copyOf(held)) {
      if (h.step().delivery() == Delivery.LATER_STEP && h.atStep() <= step) {
        deliver(h);
      }
    }
  }

  /** Delivers the requests held back from checkout {@code c} whose delivery is one of {@code when}, oldest first. */
  private void deliverDue(int c, Delivery... when) {
    for (Held h : List.copyOf(held)) {
      if (h.wire().index == c && List.of(when).contains(h.step().delivery())) {
        if (h.step().delivery() == Delivery.IN_PEER_RUN) {
          inPeerRun(h);
        } else {
          deliver(h);
        }
      }
    }
  }

  /** The holder stalls past its lease; its peer runs, and {@code h} arrives just before the peer's lockfile write. */
  private void inPeerRun(Held h) {
    if (!held.contains(h)) {
      return;
    }
    Slot peer = null;
    for (int k = 0; k < slots.size() - 1 && peer == null; k++) {
      Slot candidate = slots.get((h.wire().index + h.step().peer() + k) % slots.size());
      if (candidate.index != h.wire().index && !running.contains(candidate.index)) {
        peer = candidate;
      }
    }
    if (peer == null) {
      deliver(h); // every other checkout is inside a run on this thread: it arrives now
      return;
    }
    peer.faults.faults().beforeNext(DatastoreOperation.WRITE, IS_LOCKFILE, () -> deliver(h));
    stall();
    execute(peer, Op.RUN, h.step().peerEdits(), Injected.NONE);
    deliver(h); // the peer wrote nothing: it arrives now
  }

  /**
   * Delivers {@code h} (once): it lands only if the version it was conditioned on is current. On a
   * store whose versions repeat, a request that would land only because that version's bytes came
   * back after the store moved on is not delivered: that is the one case no conditional write can
   * fence ({@code Landing}'s class comment), where it could revert a peer's removal.
   */
  private void deliver(Held h) {
    if (!held.remove(h)) {
      return;
    }
    if (remote.versionsRepeat() && recorder.current() != h.heldAt() && wouldLand(h.condition())) {
      count("delayed write: withheld (its parent's bytes came back: beyond any fence)");
      return;
    }
    if (!DELIVER_UNDONE && wouldLand(h.condition()) && model.undoes(h.send(), recorder.current())) {
      count("delayed write: withheld (its writer undid a value it carries: UndoneInDoubtWriteTest)");
      return;
    }
    long late = model.lateLandings();
    long superseded = model.supersededLandings();
    WriteResult result = h.wire().deliver(h);
    trace("delivered %s of c%s: %s (now version %s)", h.send().commitId, h.wire().index, result, recorder.current());
    count("delayed write: " + (!(result instanceof WriteResult.Written) ? "refused"
        : model.lateLandings() == late ? "landed while its record named it"
        : model.supersededLandings() == superseded ? "landed after its record moved on"
        : "landed after its record moved on, with superseded values"));
  }

  /**
   * Whether a held request is delivered even when its writer has since set a name it carries back to
   * the value its parent holds: the product then loses that change ({@link UndoneInDoubtWriteTest}),
   * so by default such a request never arrives; {@code -Dtierlock.property.deliverUndone=true}
   * delivers it.
   */
  static final boolean DELIVER_UNDONE = !"false".equals(System.getProperty("tierlock.property.deliverUndone"));

  private boolean wouldLand(WriteCondition condition) {
    Optional<StoredObject> now = remote.stat(LOCKFILE);
    if (condition instanceof WriteCondition.MustMatch match) {
      return now.isPresent() && now.get().version().equals(match.version());
    }
    return condition != WriteCondition.MustNotExist.INSTANCE || now.isEmpty();
  }

  /** Whether to print what each run did and how each held request fared ({@code -Dtierlock.property.trace=true}). */
  private static final boolean TRACE = Boolean.getBoolean("tierlock.property.trace");

  private static void trace(String format, Object... args) {
    if (TRACE) {
      System.out.println("  " + String.format(format, args));
    }
  }

  private static void count(String what) {
    DELIVERIES.merge(what, 1L, Long::sum);
  }

  /** What became of the requests held back, over every scenario of the JVM. */
  static final Map<String, Long> DELIVERIES = new java.util.concurrent.ConcurrentSkipListMap<>();

  private static byte[] bytesOf(ObjectBody body) {
    try (InputStream in = body.open()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Slot peerOf(Step step) {
    return slots.get((step.checkout() + step.peer()) % slots.size());
  }

  private void inject(Slot slot, Step step, int index) {
    Faults faults = slot.faults.faults();
    Slot peer = peerOf(step);
    switch (step.fault()) {
      case NONE, PEER_BURST_BEFORE, CRASH_IN_CHANGE, SLOW_CHANGE -> { }
      case DELAYED_WRITE, DELAYED_WRITE_THEN_TIMEOUTS -> slot.wire.arm(step, index);
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
    running.add(c);
    try {
      executeRunning(slot, op, planned, fault);
    } finally {
      running.remove(c);
    }
  }

  private void executeRunning(Slot slot, Op op, List<Planned> planned, Injected fault) {
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
            inner.put(ExtensionName.of(planned.get(0).name()), LockfileEntry.builder("9.9.9-never", clock.instant()).build());
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
    if (TRACE) {
      trace("c%s %s %s %s -> %s; record %s", c, op, planned, fault, ending, slot.checkout.transaction().pending()
          .map(PendingChange::describe).orElse("none"));
    }
    long ownLate = model.toldOwnLateDrops();
    model.runEnded(c, ending, firstEdit, readMark);
    long unreported = model.unreportedDrops();
    OUTCOMES.merge(ending.what().replaceAll(" \\[.*", "") + (ending.droppedByWarning().isEmpty() ? "" : " +dropped-warning")
        + (unreported > reportedSoFar ? " +dropped-unreported" : "")
        + (model.toldOwnLateDrops() > ownLate ? " +dropped-for-its-own-late-write" : ""), 1L, Long::sum);
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
