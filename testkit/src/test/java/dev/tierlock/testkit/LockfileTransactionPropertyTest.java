package dev.tierlock.testkit;

import dev.tierlock.CommitMode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.PublishFailurePolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Any interleaving of 2 to 5 checkouts on one fake remote, each putting and removing entries (some
 * names shared, so changes really conflict) under either publish-failure policy and its own most
 * publish attempts, with faults: lost answers (the write landed or not), lost answers whose
 * read-backs all fail, runs of peer commits longer than a short lineage, unavailable and throttled
 * stores, failed fetches, holders stalled past their lease while a peer publishes, changes that
 * throw or outlive the deadline, and processes that die inside their change, before their write,
 * right after it landed or during its read-back (and are reopened on the same directory), and writes
 * held back in the network and delivered late ({@link Injected#DELAYED_WRITE}: before the writer's
 * next send or read, inside a peer's run, steps later, or never). At the end
 * every checkout settles what it has pending ({@code run} with no change, {@code reapplyPending()}
 * for an outcome in doubt; never discard), and nothing may be left.
 *
 * <p>The oracle ({@link TransactionModel}) judges every write against the writer's record and the
 * real history in the store's order ({@link HistoryRecorder}), byte for byte (a late write against
 * what that very send carried), and every run's end
 * against what its checkout asked for: a change is lost only if it was dropped for a conflict the
 * history really shows. It runs on both version presets: fresh generations (GCS) and digests of
 * the bytes (S3 ETags, where equal bytes bring an old version back).
 *
 * <p>Tries: {@code jqwik.tries.default} (150 in {@code junit-platform.properties}); raise it for a
 * long run with {@code -Djqwik.tries.default=5000}. Switches: {@code
 * -Dtierlock.property.trace=true} prints each run and each held request. Held requests whose
 * writer has since undone a value they carry are delivered ({@link UndoneInDoubtWriteTest};
 * {@code -Dtierlock.property.deliverUndone=false} turns that off). A drop the caller is told of
 * whose kept value is the writer's own late write is allowed and counted; {@code
 * -Dtierlock.property.strictOwnLateDrops=true} fails it (it still happens, rarely, on the preset
 * whose versions repeat: the caller is told of a conflict whose "other checkout" is its own late
 * write).
 */
class LockfileTransactionPropertyTest {

  /** A metadata capacity that keeps a lineage of five 16-character commit ids. */
  static final int SHORT_CAPACITY = LostAnswerScenarios.SHORT_CAPACITY;

  /** The lockfile the store holds at the start of a seeded scenario: as another tool left it. */
  static final String SEED = "{\n"
      + "\t\"@seed/kept\": {\n"
      + "\t\t\"version\": \"1.0.0\",\n"
      + "\t\t\"x-team\": {\"owner\": \"ops\"},\n"
      + "\t\t\"pulledAt\": \"2025-01-01T00:00:00.000Z\",\n"
      + "\t\t\"files\": [\"z.txt\", \"a.txt\"]\n"
      + "\t},\n"
      + "\t\"@s/k0\": {\"version\": \"seed\", \"pulledAt\": \"2025-01-02T00:00:00.000Z\"},\n"
      + "\t\"lockfileVersion\": 2\n"
      + "}\n";

  private static final List<String> KEPT_MEMBERS = List.of(SEED.substring(SEED.indexOf("\t\"@seed/kept\""),
      SEED.indexOf("\t},\n") + 3), "\t\"lockfileVersion\": 2");

  private static long runs;
  private static long tries;

  /** What a step's run does. */
  enum Op {
    /** Runs the planned edits. */
    RUN,
    /** Runs them and a nested change that throws (and is undone). */
    NESTED_THROWS,
    /** Runs them, then throws: nothing of it may be published or kept. */
    THROWS,
    /** Refreshes: read-only. */
    REFRESH,
    /** Re-applies whatever is pending (nothing happens when nothing is). */
    REAPPLY
  }

  /** The fault a step injects into its checkout's store. */
  enum Injected {
    NONE, LOST_ANSWER, TIMEOUT_BEFORE_APPLY, LOST_ANSWER_NO_READBACK, UNAPPLIED_NO_READBACK,
    LOST_ANSWER_NO_READBACK_THEN_BURST, UNAVAILABLE_BURST, THROTTLE, FETCH_FAILS, STALL_PEER, LOST_ANSWER_STALL_PEER,
    UNAPPLIED_STALL_PEER, PEER_BURST_BEFORE, CRASH_IN_CHANGE, CRASH_BEFORE_WRITE, CRASH_AFTER_WRITE, CRASH_AT_READBACK,
    SLOW_CHANGE,
    /**
     * The step's first lockfile write is held back (the checkout hears "outcome unknown") and
     * delivered to the store later, as the step's {@link Delivery} says, with its original
     * precondition: it lands only if that version is current then.
     */
    DELAYED_WRITE,
    /** As {@link #DELAYED_WRITE}, and every later lockfile write of the step times out before it applies. */
    DELAYED_WRITE_THEN_TIMEOUTS
  }

  /** When a write held back by {@link Injected#DELAYED_WRITE} reaches the store. */
  enum Delivery {
    /** Just before the checkout's next lockfile write reaches the store (in this step or a later one). */
    BEFORE_NEXT_SEND,
    /** Just before the checkout's next lockfile read or stat (its read-back, or a later run's fetch). */
    BEFORE_READBACK,
    /**
     * At the checkout's next lockfile read or stat, the holder stalls past its lease and the step's
     * peer runs its edits; the held write arrives just before the peer's lockfile write.
     */
    IN_PEER_RUN,
    /** At the start of the step {@code later} steps on, before its checkout runs (or before the final settling). */
    LATER_STEP,
    /** Never. */
    NEVER
  }

  /** One edit a run makes: a put (of a version never used before) or a removal. */
  record Planned(boolean put, String name) {
    @Override
    public String toString() {
      return (put ? "put " : "rm ") + name;
    }
  }

  /** A checkout's settings. */
  record Checkout(PublishFailurePolicy policy, int attempts, CommitMode mode) {

    /** A locked checkout. */
    Checkout(PublishFailurePolicy policy, int attempts) {
      this(policy, attempts, CommitMode.LOCKED);
    }
  }

  /**
   * One step: a run of {@code checkout}, with a fault; {@code peer} (an offset to another checkout)
   * acts in the fault's hooks with {@code peerEdits}, or makes {@code burst} commits; a write the
   * fault holds back arrives as {@code delivery} says ({@code later}: how many steps on).
   */
  record Step(int checkout, Op op, List<Planned> edits, Injected fault, int peer, List<Planned> peerEdits, int burst,
      Delivery delivery, int later) {

    /** A step whose fault holds nothing back. */
    Step(int checkout, Op op, List<Planned> edits, Injected fault, int peer, List<Planned> peerEdits, int burst) {
      this(checkout, op, edits, fault, peer, peerEdits, burst, Delivery.NEVER, 1);
    }
  }

  /** A scenario: the checkouts, the store's metadata capacity, whether the store starts with {@link #SEED}, the steps. */
  record Scenario(List<Checkout> checkouts, int capacity, boolean seeded, List<Step> steps) {}

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<Checkout> checkout = Combinators.combine(Arbitraries.of(PublishFailurePolicy.class),
        Arbitraries.of(1, 2, 12), Arbitraries.of(CommitMode.class)).as(Checkout::new);
    Arbitrary<Injected> faults = Arbitraries.frequencyOf(
        Tuple.of(5, Arbitraries.just(Injected.NONE)),
        Tuple.of(6, Arbitraries.of(Injected.class)));
    Arbitrary<Op> ops = Arbitraries.frequency(Tuple.of(12, Op.RUN), Tuple.of(1, Op.NESTED_THROWS), Tuple.of(1, Op.THROWS),
        Tuple.of(1, Op.REFRESH), Tuple.of(2, Op.REAPPLY));
    return Arbitraries.integers().between(2, 5).flatMap(n -> Combinators.combine(checkout.list().ofSize(n),
        Arbitraries.of(SHORT_CAPACITY, FakeRemote.DEFAULT_MAX_METADATA_BYTES), Arbitraries.of(true, false),
        steps(n, ops, faults)).as(Scenario::new));
  }

  private static Arbitrary<List<Step>> steps(int n, Arbitrary<Op> ops, Arbitrary<Injected> faults) {
    Arbitrary<Integer> who = Arbitraries.integers().between(0, n - 1);
    return who.flatMap(c -> Combinators.combine(ops, planned(c, n), faults, Arbitraries.integers().between(1, n - 1),
        Arbitraries.integers().between(1, 8), Arbitraries.of(Delivery.class), Arbitraries.integers().between(1, 3))
        .as((op, edits, fault, peer, burst, delivery, later) -> new Step(c, op, edits, fault, peer,
            List.of(new Planned(burst % 3 != 0, "@s/k" + burst % 3), new Planned(true, "@c" + ((c + peer) % n) + "/k1")),
            burst, delivery, later))).list().ofMinSize(4).ofMaxSize(24);
  }

  private static Arbitrary<List<Planned>> planned(int checkout, int n) {
    Arbitrary<String> names = Arbitraries.of("@s/k0", "@s/k1", "@s/k2", "@c" + checkout + "/k0", "@c" + checkout + "/k1");
    return Combinators.combine(Arbitraries.frequency(Tuple.of(3, true), Tuple.of(2, false)), names).as(Planned::new)
        .list().ofMinSize(1).ofMaxSize(3);
  }

  @Property
  void everyAcknowledgedChangeLands_nothingIsReverted_andNothingIsDroppedWithoutACause(
      @ForAll("scenarios") Scenario scenario) throws IOException {
    play(scenario, FakeRemote.Versions.GENERATIONS);
  }

  @Property
  void everyAcknowledgedChangeLands_nothingIsReverted_andNothingIsDroppedWithoutACause_whenEqualBytesGetEqualVersions(
      @ForAll("scenarios") Scenario scenario) throws IOException {
    play(scenario, FakeRemote.Versions.CONTENT_DIGEST);
  }

  /**
   * A run that died left a record noting that it dropped an earlier edit of {@code @s/k1} (its
   * newer edit superseded it); re-applying the record then meets a conflict on the newer edit. Both
   * are told: the notice and the conflict name one name, two different edits.
   */
  @Example
  void aRecordsNoticeOfASupersededEdit_andAConflictOnItsLatestEdit_areBothTold() throws IOException {
    Scenario scenario = new Scenario(List.of(new Checkout(PublishFailurePolicy.THROW, 1, CommitMode.LOCKED), new Checkout(PublishFailurePolicy.THROW, 1, CommitMode.LOCKED), new Checkout(PublishFailurePolicy.THROW, 1, CommitMode.LOCKED), new Checkout(PublishFailurePolicy.THROW, 1, CommitMode.LOCKED)), 190, true, List.of(
        new Step(0, Op.RUN, List.of(new Planned(true, "@c0/k0"), new Planned(true, "@c0/k0")), Injected.LOST_ANSWER_STALL_PEER, 1, List.of(new Planned(false, "@s/k0"), new Planned(true, "@c1/k1")), 6, Delivery.NEVER, 2),
        new Step(0, Op.RUN, List.of(new Planned(false, "@s/k1"), new Planned(false, "@s/k1")), Injected.UNAVAILABLE_BURST, 2, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c2/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(3, Op.RUN, List.of(new Planned(false, "@c3/k0")), Injected.LOST_ANSWER_NO_READBACK, 1, List.of(new Planned(false, "@s/k0"), new Planned(true, "@c0/k1")), 6, Delivery.IN_PEER_RUN, 2),
        new Step(1, Op.RUN, List.of(new Planned(true, "@c1/k1"), new Planned(true, "@s/k1"), new Planned(false, "@s/k2")), Injected.UNAVAILABLE_BURST, 1, List.of(new Planned(false, "@s/k0"), new Planned(true, "@c2/k1")), 6, Delivery.NEVER, 1),
        new Step(3, Op.NESTED_THROWS, List.of(new Planned(true, "@s/k1"), new Planned(false, "@s/k1"), new Planned(true, "@s/k1")), Injected.NONE, 1, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c0/k1")), 7, Delivery.IN_PEER_RUN, 1),
        new Step(1, Op.NESTED_THROWS, List.of(new Planned(true, "@s/k0"), new Planned(true, "@s/k1"), new Planned(true, "@s/k2")), Injected.CRASH_BEFORE_WRITE, 3, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c0/k1")), 4, Delivery.BEFORE_READBACK, 3),
        new Step(0, Op.RUN, List.of(new Planned(false, "@s/k0")), Injected.NONE, 2, List.of(new Planned(true, "@s/k2"), new Planned(true, "@c2/k1")), 2, Delivery.BEFORE_NEXT_SEND, 2),
        new Step(3, Op.RUN, List.of(new Planned(false, "@s/k2"), new Planned(false, "@c3/k1"), new Planned(true, "@c3/k0")), Injected.CRASH_BEFORE_WRITE, 3, List.of(new Planned(false, "@s/k0"), new Planned(true, "@c2/k1")), 6, Delivery.BEFORE_NEXT_SEND, 2),
        new Step(2, Op.REAPPLY, List.of(new Planned(true, "@s/k2")), Injected.NONE, 3, List.of(new Planned(false, "@s/k0"), new Planned(true, "@c1/k1")), 3, Delivery.LATER_STEP, 3),
        new Step(2, Op.RUN, List.of(new Planned(false, "@s/k1")), Injected.NONE, 2, List.of(new Planned(true, "@s/k2"), new Planned(true, "@c0/k1")), 8, Delivery.BEFORE_READBACK, 2),
        new Step(1, Op.REAPPLY, List.of(new Planned(true, "@c1/k0"), new Planned(false, "@s/k0"), new Planned(true, "@c1/k1")), Injected.NONE, 2, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c3/k1")), 1, Delivery.BEFORE_NEXT_SEND, 3),
        new Step(1, Op.RUN, List.of(new Planned(false, "@s/k2"), new Planned(false, "@c1/k0")), Injected.DELAYED_WRITE_THEN_TIMEOUTS, 2, List.of(new Planned(false, "@s/k0"), new Planned(true, "@c3/k1")), 6, Delivery.LATER_STEP, 1),
        new Step(1, Op.RUN, List.of(new Planned(false, "@s/k2"), new Planned(true, "@s/k0")), Injected.NONE, 1, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c2/k1")), 4, Delivery.LATER_STEP, 3),
        new Step(0, Op.RUN, List.of(new Planned(true, "@s/k0")), Injected.DELAYED_WRITE_THEN_TIMEOUTS, 1, List.of(new Planned(true, "@s/k2"), new Planned(true, "@c1/k1")), 8, Delivery.NEVER, 2)));
    play(scenario, FakeRemote.Versions.GENERATIONS);
  }

  /**
   * An optimistic checkout's change puts and removes a name absent from its stale view, which a
   * peer has set since: the change is checked on that name too, and the peer's value is a conflict.
   */
  @Example
  void anOptimisticChangeLeavingANameAsItsStaleViewHadIt_isAConflictWhenAPeerSetIt() throws IOException {
    Scenario scenario = new Scenario(List.of(new Checkout(PublishFailurePolicy.THROW, 1, CommitMode.OPTIMISTIC), new Checkout(PublishFailurePolicy.THROW, 1, CommitMode.LOCKED), new Checkout(PublishFailurePolicy.THROW, 1, CommitMode.LOCKED)), 190, true, List.of(
        new Step(0, Op.RUN, List.of(new Planned(true, "@s/k0")), Injected.NONE, 1, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c1/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(1, Op.RUN, List.of(new Planned(true, "@s/k0")), Injected.NONE, 1, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c2/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(2, Op.RUN, List.of(new Planned(true, "@s/k2")), Injected.NONE, 2, List.of(new Planned(true, "@s/k2"), new Planned(true, "@c1/k1")), 2, Delivery.BEFORE_READBACK, 1),
        new Step(0, Op.REAPPLY, List.of(new Planned(true, "@c0/k1")), Injected.NONE, 2, List.of(new Planned(true, "@s/k2"), new Planned(true, "@c2/k1")), 8, Delivery.BEFORE_NEXT_SEND, 2),
        new Step(2, Op.RUN, List.of(new Planned(true, "@s/k0"), new Planned(false, "@c2/k0")), Injected.CRASH_AT_READBACK, 2, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c1/k1")), 4, Delivery.BEFORE_NEXT_SEND, 3),
        new Step(0, Op.RUN, List.of(new Planned(true, "@s/k2"), new Planned(false, "@s/k2"), new Planned(true, "@s/k1")), Injected.NONE, 2, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c2/k1")), 7, Delivery.NEVER, 3)));
    play(scenario, FakeRemote.Versions.GENERATIONS);
  }

  /**
   * An optimistic checkout's write carries a name its change put and removed again, at the value
   * the version it writes on has: checked, and changing nothing.
   */
  @Example
  void anOptimisticWriteCarryingANameItLeftAsItWas_changesNothingOfIt() throws IOException {
    Scenario scenario = new Scenario(List.of(new Checkout(PublishFailurePolicy.THROW, 1, CommitMode.OPTIMISTIC), new Checkout(PublishFailurePolicy.THROW, 1, CommitMode.OPTIMISTIC)), 190, true, List.of(
        new Step(0, Op.RUN, List.of(new Planned(true, "@s/k2")), Injected.NONE, 1, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c1/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(1, Op.RUN, List.of(new Planned(true, "@s/k0")), Injected.NONE, 1, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c0/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(1, Op.RUN, List.of(new Planned(false, "@s/k0"), new Planned(false, "@c1/k1")), Injected.NONE, 1, List.of(new Planned(false, "@s/k0"), new Planned(true, "@c0/k1")), 3, Delivery.NEVER, 1),
        new Step(0, Op.RUN, List.of(new Planned(false, "@c0/k1")), Injected.DELAYED_WRITE_THEN_TIMEOUTS, 1, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c1/k1")), 1, Delivery.BEFORE_NEXT_SEND, 1),
        new Step(0, Op.NESTED_THROWS, List.of(new Planned(true, "@c0/k0"), new Planned(true, "@c0/k0")), Injected.SLOW_CHANGE, 1, List.of(new Planned(true, "@s/k2"), new Planned(true, "@c1/k1")), 5, Delivery.NEVER, 1),
        new Step(1, Op.RUN, List.of(new Planned(false, "@s/k2"), new Planned(true, "@c1/k0"), new Planned(false, "@c1/k0")), Injected.NONE, 1, List.of(new Planned(true, "@s/k2"), new Planned(true, "@c0/k1")), 5, Delivery.IN_PEER_RUN, 1)));
    play(scenario, FakeRemote.Versions.GENERATIONS);
  }

  @Example
  void aChangeInDoubtPastTheLineage_isReappliedAtTheEnd_withoutRevertingThePeer() throws IOException {
    Scenario scenario = new Scenario(List.of(new Checkout(PublishFailurePolicy.THROW, 12),
        new Checkout(PublishFailurePolicy.DEFER, 12)), SHORT_CAPACITY, true, List.of(
        new Step(0, Op.RUN, List.of(new Planned(true, "@s/k1"), new Planned(true, "@c0/k0")),
            Injected.LOST_ANSWER_NO_READBACK_THEN_BURST, 1, List.of(), 7),
        new Step(1, Op.RUN, List.of(new Planned(true, "@s/k1")), Injected.NONE, 1, List.of(), 1),
        new Step(0, Op.RUN, List.of(new Planned(true, "@c0/k1")), Injected.NONE, 1, List.of(), 1)));

    HistoryRecorder.Version last = play(scenario, FakeRemote.Versions.GENERATIONS);

    assertThat(TransactionModel.value(last.lockfile(), "@s/k1")).as("the peer's later change stands")
        .isNotNull().isNotEqualTo(TransactionModel.value(last.lockfile(), "@c0/k0"));
  }

  /** A process that dies right after its write landed, then a peer removes the entry: the restart does not revert it. */
  @Example
  void aCrashAfterTheWrite_thenAPeerRemoval_isNotReverted() throws IOException {
    Scenario scenario = new Scenario(List.of(new Checkout(PublishFailurePolicy.THROW, 12),
        new Checkout(PublishFailurePolicy.THROW, 12)), FakeRemote.DEFAULT_MAX_METADATA_BYTES, false, List.of(
        new Step(0, Op.RUN, List.of(new Planned(true, "@s/k2")), Injected.CRASH_AFTER_WRITE, 1, List.of(), 1),
        new Step(1, Op.RUN, List.of(new Planned(false, "@s/k2")), Injected.NONE, 1, List.of(), 1)));

    HistoryRecorder.Version last = play(scenario, FakeRemote.Versions.CONTENT_DIGEST);

    assertThat(TransactionModel.value(last.lockfile(), "@s/k2")).isNull();
  }

  /**
   * A write held back until the writer's next run sends its own: it lands as that run's prior,
   * carrying a value the run superseded; the run rebases from what it carried and publishes its
   * newer value.
   */
  @Example
  void aDelayedWriteThatLandsAsAPrior_isRebasedOver_andTheNewerEditStands() throws IOException {
    Scenario scenario = new Scenario(List.of(new Checkout(PublishFailurePolicy.THROW, 1),
        new Checkout(PublishFailurePolicy.THROW, 12)), FakeRemote.DEFAULT_MAX_METADATA_BYTES, true, List.of(
        new Step(0, Op.RUN, List.of(new Planned(true, "@s/k0")), Injected.DELAYED_WRITE, 1, List.of(), 1,
            Delivery.BEFORE_NEXT_SEND, 1),
        new Step(0, Op.RUN, List.of(new Planned(true, "@s/k0"), new Planned(true, "@c0/k1")), Injected.NONE, 1,
            List.of(), 1)));

    HistoryRecorder.Version last = play(scenario, FakeRemote.Versions.GENERATIONS);

    assertThat(TransactionModel.value(last.lockfile(), "@s/k0")).as("the newer edit stands").isEqualTo("e1");
  }

  /** A write held back arrives inside a peer's run, just before the peer's own write, which is rebased onto it. */
  @Example
  void aDelayedWriteThatLandsInsideAPeersRun_isKept_andThePeersChangeToo() throws IOException {
    Scenario scenario = new Scenario(List.of(new Checkout(PublishFailurePolicy.THROW, 12),
        new Checkout(PublishFailurePolicy.THROW, 12)), FakeRemote.DEFAULT_MAX_METADATA_BYTES, false, List.of(
        new Step(0, Op.RUN, List.of(new Planned(true, "@s/k1")), Injected.DELAYED_WRITE, 1,
            List.of(new Planned(false, "@s/k1"), new Planned(true, "@c1/k1")), 1, Delivery.IN_PEER_RUN, 1)));

    HistoryRecorder.Version last = play(scenario, FakeRemote.Versions.CONTENT_DIGEST);

    // the peer's removal found nothing to remove (it ran before the held write arrived): c0's value stands
    assertThat(TransactionModel.value(last.lockfile(), "@s/k1")).as("c0's delayed write").isEqualTo("e0");
    assertThat(TransactionModel.value(last.lockfile(), "@c1/k1")).as("the peer's change, rebased onto it").isNotNull();
  }

  /**
   * A run that dies may leave a report of a superseded edit owed (or not); a later warning about
   * the newer edit's drop, for a peer's real change, is that drop, not the owed report.
   */
  @Example
  void aWarningOfADrop_afterARunThatDied_isTheDropOfTheNewerEdit() throws IOException {
    Checkout checkout = new Checkout(PublishFailurePolicy.THROW, 1);
    List<Planned> peer = List.of(new Planned(true, "@s/k1"), new Planned(true, "@c2/k1"));
    Scenario scenario = new Scenario(List.of(checkout, checkout, checkout, checkout, checkout), SHORT_CAPACITY, true,
        List.of(new Step(1, Op.RUN, List.of(new Planned(true, "@s/k0")), Injected.LOST_ANSWER_NO_READBACK, 1, peer, 1),
            new Step(0, Op.RUN, List.of(new Planned(true, "@s/k0")), Injected.NONE, 1, peer, 1),
            new Step(3, Op.RUN, List.of(new Planned(true, "@s/k0")), Injected.NONE, 1, peer, 4),
            new Step(2, Op.RUN, List.of(new Planned(false, "@c2/k1")), Injected.LOST_ANSWER, 2, peer, 3),
            new Step(1, Op.RUN, List.of(new Planned(false, "@c1/k0"), new Planned(false, "@s/k0")),
                Injected.CRASH_BEFORE_WRITE, 3, peer, 6),
            new Step(2, Op.RUN, List.of(new Planned(true, "@c2/k0"), new Planned(true, "@c2/k1"),
                new Planned(true, "@s/k0")), Injected.UNAVAILABLE_BURST, 2, peer, 3),
            new Step(2, Op.RUN, List.of(new Planned(true, "@s/k0"), new Planned(true, "@s/k0")), Injected.NONE, 1, peer,
                7)));

    HistoryRecorder.Version last = play(scenario, FakeRemote.Versions.GENERATIONS);

    assertThat(TransactionModel.value(last.lockfile(), "@s/k0")).as("c2's later value stands").isEqualTo("e7");
  }

  @AfterContainer
  static void report() {
    System.out.println("LockfileTransactionPropertyTest: " + tries + " scenarios, " + runs + " runs; they ended "
        + PropertyRun.OUTCOMES + "; the writes held back: " + PropertyRun.DELIVERIES);
  }

  /** Plays {@code scenario} on a fresh fake remote with {@code versions}, checks it, and returns the last version. */
  private static HistoryRecorder.Version play(Scenario scenario, FakeRemote.Versions versions) throws IOException {
    Path dir = Files.createTempDirectory("tierlock-property");
    try (FakeRemote remote = FakeRemote.builder().versions(versions).maxMetadataBytes(scenario.capacity()).build()) {
      if (scenario.seeded()) {
        remote.plant(PropertyRun.LOCKFILE, SEED.getBytes(StandardCharsets.UTF_8));
      }
      PropertyRun run = new PropertyRun(remote, dir, scenario);
      runs += run.play();
      tries++;
      HistoryRecorder.Version last = run.last();
      byte[] stored = remote.peek(PropertyRun.LOCKFILE).orElse(null);
      assertThat(stored).as("what the store holds is the last write recorded, in %s", scenario).isEqualTo(last.bytes());
      if (scenario.seeded()) {
        String text = new String(stored, StandardCharsets.UTF_8);
        for (String member : KEPT_MEMBERS) {
          assertThat(text).as("a member no checkout touched keeps its bytes, in %s", scenario).contains(member);
        }
      }
      return last;
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        List<Path> all = new ArrayList<>(files.sorted(Comparator.reverseOrder()).toList());
        for (Path p : all) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
