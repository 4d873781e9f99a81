package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class SelfCheckTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  /** The rounds of races of the checks that the sweep tests run after every one of their calls. */
  private static final int SWEEP_ROUNDS = 2;

  /**
   * How many calls other than reads a check of {@code rounds} rounds that no sweep touches makes on
   * an empty store: one listing; the sequence's 4 writes, 2 deletes and a stat; per round a create
   * race (8 writes), a race of 4 writes and 4 deletes, and then a delete of the probe a write won or
   * a stat of the one a delete won.
   */
  private static int checkCalls(int rounds) {
    return 1 + 7 + rounds * (8 + 8 + 1);
  }

  /** {@link #checkCalls} of the sweep tests' checks. */
  private static final int CHECK_CALLS = checkCalls(SWEEP_ROUNDS);

  @TempDir Path dir;

  private final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T10:00:00Z"));

  @BeforeEach
  @AfterEach
  void forget() {
    SelfCheckedDatastore.forgetProcessVerdicts();
  }

  private SelfCheckedDatastore guard(MemoryDatastore store, String checkout) {
    return new SelfCheckedDatastore(store, Namespace.NONE, new SelfCheckMarker(dir.resolve(checkout)), clock);
  }

  private static WriteResult write(SelfCheckedDatastore store) {
    return store.write(KEY, ObjectBody.of(new byte[] {1}), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
  }

  private static long probeWrites(MemoryDatastore store) {
    return store.calls().stream().filter(c -> c.startsWith("WRITE .tierlock-selfcheck/probe-")).count();
  }

  @Test
  void anHonestStore_passesOnceBeforeItsFirstWrite_andKeepsOnlyItsVerdictObject() throws Exception {
    java.nio.file.Files.createDirectories(dir.resolve("a"));
    MemoryDatastore store = new MemoryDatastore();
    SelfCheckedDatastore guard = guard(store, "a");

    assertThat(write(guard)).isInstanceOf(WriteResult.Written.class);
    long checked = store.calls().size();
    assertThat(write(guard)).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);

    assertThat(store.calls()).hasSize((int) checked + 1);
    Map<String, Long> counts = countByOperation(store.calls().subList(0, (int) checked - 1));
    int rounds = SelfCheck.ROUNDS;
    assertThat(counts).as("the check: one listing, the probes' writes, reads, stats and deletes, then a stat and a"
        + " write of the verdict").containsOnlyKeys("LIST", "WRITE", "READ", "STAT", "DELETE")
        .containsEntry("LIST", 1L).containsEntry("WRITE", 4L + 12L * rounds + 1);
    assertThat(counts.get("DELETE") + counts.get("STAT")).as("per round, a delete of a probe a write won or a stat of"
        + " one a delete won").isEqualTo(2 + 1 + 4L * rounds + rounds + 1);
    assertThat(counts.get("DELETE") - counts.get("READ")).as("per round, a read back of a probe a write won")
        .isEqualTo(2 - 3 + 3L * rounds);
    assertThat(checked - 1).as("at most the calls the Javadoc states").isBetween(13L + 18 * rounds, 13L + 19 * rounds);
    assertThat(probeWrites(store)).as("4 sequential probe writes, 20 rounds of 8 racing creates and 4 racing swaps")
        .isEqualTo(4 + rounds * 12);
    assertThat(store.calls()).filteredOn(c -> c.startsWith("DELETE .tierlock-selfcheck/probe-") && c.contains("MustMatch"))
        .as("2 in the sequence, 4 racers in each round").hasSizeGreaterThanOrEqualTo(2 + 4 * rounds);
    assertThat(store.keys()).containsExactly(ObjectKey.of(".tierlock-selfcheck/verdict"), KEY);
    assertThat(guard.isChecked()).isTrue();
  }

  @Test
  void aStoreThatIgnoresPreconditions_isRefused_andNothingIsWritten() {
    MemoryDatastore store = new MemoryDatastore();
    store.ignorePreconditions();
    SelfCheckedDatastore guard = guard(store, "a");

    assertThatThrownBy(() -> write(guard))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageStartingWith("Cannot write to datastore " + store.identity() + ": it does not honour write preconditions "
            + "(a create-only write over an existing object succeeded, probe key .tierlock-selfcheck/probe-")
        .hasMessageEndingWith("); Tierlock refuses to write to it")
        .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
    assertThatThrownBy(() -> guard.delete(KEY, WriteCondition.none())).isInstanceOf(DatastoreUnsafeException.class);
    assertThat(store.keys()).isEmpty();
  }

  @Test
  void aStoreThatIgnoresDeletePreconditions_isRefused() {
    MemoryDatastore store = new MemoryDatastore();
    store.ignoreDeletePreconditions();

    assertThatThrownBy(() -> write(guard(store, "a")))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageContaining("(a delete conditional on a stale version deleted the object, probe key");
  }

  @Test
  void aStoreWhosePreconditionsAreNotAtomic_isRefused() {
    MemoryDatastore store = new MemoryDatastore();
    store.raceConditionalWrites(SelfCheck.RACERS);

    assertThatThrownBy(() -> write(guard(store, "a")))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageContaining("(8 concurrent create-only writes of one fresh key had 8 winners (8 writes, 0 deletes),"
            + " not exactly one");
    assertThat(store.keys()).doesNotContain(KEY);
  }

  @Test
  void anotherStoreWithTheSameIdentity_isCheckedInFull_evenAfterAPassInThisProcessAndInTheCheckout() {
    MemoryDatastore honest = new MemoryDatastore("shared-address");
    assertThat(write(guard(honest, "a"))).isInstanceOf(WriteResult.Written.class);

    MemoryDatastore impostor = new MemoryDatastore("shared-address");
    impostor.ignorePreconditions();
    assertThat(impostor.identity()).isEqualTo(honest.identity());

    assertThatThrownBy(() -> write(guard(impostor, "a"))).as("same process, same checkout marker")
        .isInstanceOf(DatastoreUnsafeException.class);
    SelfCheckedDatastore.forgetProcessVerdicts();
    assertThatThrownBy(() -> write(guard(impostor, "a"))).as("a later process, trusting only the marker")
        .isInstanceOf(DatastoreUnsafeException.class);
    assertThat(impostor.keys()).doesNotContain(KEY);
  }

  @Test
  void anEarlierVerdict_isProvenByOneStat_inAnotherProcess() {
    MemoryDatastore store = new MemoryDatastore("s3.example");
    assertThat(write(guard(store, "a"))).isInstanceOf(WriteResult.Written.class);
    SelfCheckedDatastore.forgetProcessVerdicts();
    int before = store.calls().size();

    guard(store, "a").ensureChecked();

    assertThat(store.calls().subList(before, store.calls().size()))
        .containsExactly("STAT .tierlock-selfcheck/verdict");
  }

  @Test
  void theSameInstance_underAnotherGuard_costsNothing() {
    MemoryDatastore store = new MemoryDatastore();
    guard(store, "a").ensureChecked();
    int before = store.calls().size();

    guard(store, "b").ensureChecked();

    assertThat(store.calls()).hasSize(before);
  }

  @Test
  void aVerdictOlderThanItsTtl_isCheckedAgain() {
    MemoryDatastore store = new MemoryDatastore("s3.example");
    guard(store, "a").ensureChecked();
    SelfCheckedDatastore.forgetProcessVerdicts();
    clock.advance(SelfCheckedDatastore.TTL.plusSeconds(1));
    long before = probeWrites(store);

    guard(store, "a").ensureChecked();

    assertThat(probeWrites(store)).isGreaterThan(before);
  }

  @Test
  void anUntouchedCheck_costs348CallsBesidesItsReads() {
    Recording store = new Recording(new MemoryDatastore(), c -> false, () -> { });

    new SelfCheck(store, Namespace.NONE, clock).run();

    assertThat(store.calls()).hasSize(checkCalls(SelfCheck.ROUNDS)).hasSize(348);
    assertThat(store.probeKeys()).as("one probe for the sequence, one per round").hasSize(1 + SelfCheck.ROUNDS);
  }

  @Test
  void probesOlderThanTheSweepAge_areSwept_eachAfterItsTombstone_andYoungerOnesStay() {
    MemoryDatastore store = new MemoryDatastore();
    String dead = clock.instant().minus(SelfCheck.STALE_PROBE).minusSeconds(60).toEpochMilli()
        + "-0c4e6a63-2a4b-4f4e-9a57-5f2a5c0b7d11";
    ObjectKey old = ObjectKey.of(".tierlock-selfcheck/probe-" + dead);
    ObjectKey twoHours = ObjectKey.of(".tierlock-selfcheck/probe-" + clock.instant().minus(Duration.ofHours(2)).toEpochMilli()
        + "-1c4e6a63-2a4b-4f4e-9a57-5f2a5c0b7d11");
    for (ObjectKey k : List.of(old, twoHours)) {
      store.write(k, ObjectBody.of(new byte[] {1}), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
    }

    guard(store, "a").ensureChecked();

    ObjectKey tombstone = ObjectKey.of(".tierlock-selfcheck/swept-" + dead);
    assertThat(store.keys()).doesNotContain(old).contains(twoHours, tombstone);
    List<String> calls = store.calls();
    assertThat(calls.indexOf("WRITE " + tombstone + " " + WriteCondition.mustNotExist()))
        .as("the tombstone is written before the probe is deleted").isNotNegative()
        .isLessThan(calls.indexOf("DELETE " + old + " " + WriteCondition.mustMatch(ObjectVersion.of("m1"))));
  }

  @Test
  void tombstonesOlderThanTheirAge_areSwept_andYoungerOnesStay() {
    MemoryDatastore store = new MemoryDatastore();
    ObjectKey old = ObjectKey.of(".tierlock-selfcheck/swept-" + clock.instant().minus(SelfCheck.STALE_TOMBSTONE)
        .minusSeconds(60).toEpochMilli() + "-0c4e6a63-2a4b-4f4e-9a57-5f2a5c0b7d11");
    ObjectKey young = ObjectKey.of(".tierlock-selfcheck/swept-" + clock.instant().minus(Duration.ofDays(6)).toEpochMilli()
        + "-1c4e6a63-2a4b-4f4e-9a57-5f2a5c0b7d11");
    for (ObjectKey k : List.of(old, young)) {
      store.write(k, ObjectBody.of(new byte[] {1}), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
    }

    guard(store, "a").ensureChecked();

    assertThat(store.keys()).doesNotContain(old).contains(young);
  }

  static Stream<Arguments> everyCallOfACheck() {
    return IntStream.rangeClosed(1, CHECK_CALLS).boxed()
        .flatMap(call -> Stream.of(Arguments.of(call, true), Arguments.of(call, false)));
  }

  /**
   * After any one call of a check, the check stalls for two days while a peer runs its whole check
   * (sweep included), or a peer whose clock is two days ahead runs its check: either sweeps the
   * probe in use, and the store, which honours every precondition, still passes.
   */
  @ParameterizedTest(name = "after call {0}, stalled {1}")
  @MethodSource("everyCallOfACheck")
  void aPeerSweepingAfterAnyCallOfACheck_neverMakesAnHonestStoreUnsafe(int call, boolean stalled) {
    MemoryDatastore memory = new MemoryDatastore();
    List<Optional<Throwable>> peers = new CopyOnWriteArrayList<>();
    Recording store = new Recording(memory, c -> c.number() == call, () -> peers.add(peerChecks(memory, stalled)));

    new SelfCheck(store, Namespace.NONE, clock, SWEEP_ROUNDS).run();

    assertThat(peers).as("the peer checked while this check ran, and passed").containsExactly(Optional.empty());
    assertThat(memory.keys()).noneMatch(k -> k.value().startsWith(".tierlock-selfcheck/probe-"));
  }

  @Test
  void aSweepBetweenTheTwoCreateOnlyWrites_startsTheCheckAgainWithFreshProbes_andConsumesTheTombstone() {
    MemoryDatastore memory = new MemoryDatastore();
    Recording store = new Recording(memory, c -> c.number() == 2, () -> assertThat(peerChecks(memory, false)).isEmpty());

    new SelfCheck(store, Namespace.NONE, clock, SWEEP_ROUNDS).run();

    assertThat(store.probeKeys()).as("the swept attempt's probe, then a whole check's").hasSize(1 + 1 + SWEEP_ROUNDS);
    assertThat(store.calls()).as("a check, plus the spoiled attempt's write (its read back finds the probe gone), the"
        + " tombstone's stat and deletion, and the probe's deletion").hasSize(CHECK_CALLS + 4);
    assertThat(memory.keys()).as("no probe and no tombstone is left").noneMatch(k -> k.value().startsWith(".tierlock-selfcheck/"));
  }

  static Stream<Arguments> theFirstCallsOfACheck() {
    return IntStream.rangeClosed(1, 5).boxed()
        .flatMap(call -> Stream.of(Arguments.of(call, true), Arguments.of(call, false)));
  }

  /** However a sweep meets the check of a store that ignores preconditions, the store is refused. */
  @ParameterizedTest(name = "after call {0}, stalled {1}")
  @MethodSource("theFirstCallsOfACheck")
  void aStoreThatIgnoresPreconditions_isRefused_howeverAPeerSweepMeetsTheCheck(int call, boolean stalled) {
    MemoryDatastore memory = new MemoryDatastore();
    memory.ignorePreconditions();
    Recording store = new Recording(memory, c -> c.number() == call, () -> assertThat(peerChecks(memory, stalled))
        .get().isInstanceOf(DatastoreUnsafeException.class));

    assertThatThrownBy(() -> new SelfCheck(store, Namespace.NONE, clock).run())
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageContaining("(a create-only write over an existing object succeeded, probe key .tierlock-selfcheck/probe-");
    assertThat(store.fired()).isOne();
  }

  /**
   * The first attempt's failed proof is one a sweep explains, and a sweep did delete its probe: the
   * attempt is void, and the second attempt, which no sweep touches, refuses the store.
   */
  @ParameterizedTest(name = "stalled {0}")
  @ValueSource(booleans = {true, false})
  void aStoreThatIgnoresCreateOnly_isRefused_evenWhenASweepExplainsTheFirstAttempt(boolean stalled) {
    MemoryDatastore memory = new MemoryDatastore();
    Datastore broken = ignoringCreateOnly(memory);
    Recording store = new Recording(broken, c -> c.number() == 2, () -> assertThat(peerChecks(broken, stalled))
        .get().isInstanceOf(DatastoreUnsafeException.class));

    assertThatThrownBy(() -> new SelfCheck(store, Namespace.NONE, clock).run())
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageStartingWith("Cannot write to datastore " + memory.identity() + ": it does not honour write preconditions "
            + "(a create-only write over an existing object succeeded, probe key .tierlock-selfcheck/probe-")
        .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
    assertThat(store.probeKeys()).as("the swept attempt's probe, then the one that proves the store unsafe").hasSize(2);
    assertThat(memory.keys()).noneMatch(k -> k.value().startsWith(".tierlock-selfcheck/"));
  }

  @Test
  void aStoreThatIgnoresCreateOnly_isRefusedAtOnce_whenNoSweepTouchedTheCheck() {
    MemoryDatastore memory = new MemoryDatastore();
    Recording store = new Recording(ignoringCreateOnly(memory), c -> false, () -> { });

    assertThatThrownBy(() -> new SelfCheck(store, Namespace.NONE, clock).run())
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageContaining("(a create-only write over an existing object succeeded, probe key");
    assertThat(store.probeKeys()).hasSize(1);
    assertThat(store.calls()).as("the listing, two writes, the tombstone's stat, the probe's deletion")
        .extracting(c -> c.operation()).containsExactly("LIST", "WRITE", "WRITE", "STAT", "DELETE");
  }

  @Test
  void aCheckWhoseProbesAreSweptInEveryAttempt_failsAsUnavailable_neverAsUnsafe() {
    MemoryDatastore memory = new MemoryDatastore();
    Recording store = new Recording(memory, c -> c.operation().equals("WRITE") && c.body().equals("tierlock self-check: create\n"),
        () -> assertThat(peerChecks(memory, false)).isEmpty());

    assertThatThrownBy(() -> new SelfCheck(store, Namespace.NONE, clock).run())
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessageStartingWith("Cannot finish the self-check of datastore " + memory.identity()
            + ": another check swept its probes in " + SelfCheck.ATTEMPTS + " attempts in a row")
        .extracting(e -> ((DatastoreUnavailableException) e).code()).isEqualTo("datastore_unavailable");
    assertThat(store.fired()).isEqualTo(SelfCheck.ATTEMPTS);
    assertThat(memory.keys()).noneMatch(k -> k.value().startsWith(".tierlock-selfcheck/probe-"));
  }

  /**
   * Runs a peer's whole check, sweep first, on {@code store}: after a two-day stall of this
   * check's clock, or with a clock of its own two days ahead; returns what it threw.
   */
  private Optional<Throwable> peerChecks(Datastore store, boolean stalled) {
    Clock peer;
    if (stalled) {
      clock.advance(Duration.ofDays(2));
      peer = clock;
    } else {
      peer = new ManualClock(clock.instant().plus(Duration.ofDays(2)));
    }
    try {
      new SelfCheck(store, Namespace.NONE, peer, SWEEP_ROUNDS).run();
      return Optional.empty();
    } catch (RuntimeException e) {
      return Optional.of(e);
    }
  }

  private static Map<String, Long> countByOperation(List<String> calls) {
    Map<String, Long> counts = new TreeMap<>();
    calls.forEach(c -> counts.merge(c.substring(0, c.indexOf(' ')), 1L, Long::sum));
    return counts;
  }

  /** Returns {@code store} with create-only dropped from every write, as a store that ignores If-None-Match does. */
  private static Datastore ignoringCreateOnly(Datastore store) {
    return new ForwardingDatastore() {
      @Override
      protected Datastore delegate() {
        return store;
      }

      @Override
      public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        return store.write(key, body, condition instanceof WriteCondition.MustNotExist ? WriteCondition.none() : condition,
            metadata);
      }
    };
  }

  /** One call of a check: its number from 1, its operation, its key (or prefix) and a write's body. */
  private record Call(int number, String operation, String target, String body) {}

  /**
   * The store as one check sees it: records every call, and after each call that {@code when}
   * matches runs {@code hook} on the calling thread before the answer returns. Thread-safe.
   */
  private static final class Recording extends ForwardingDatastore {
    private final Datastore delegate;
    private final Predicate<Call> when;
    private final Runnable hook;
    private final List<Call> calls = new ArrayList<>();
    private int fired;

    Recording(Datastore delegate, Predicate<Call> when, Runnable hook) {
      this.delegate = delegate;
      this.when = when;
      this.hook = hook;
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }

    synchronized List<Call> calls() {
      return List.copyOf(calls);
    }

    synchronized int fired() {
      return fired;
    }

    /** Returns the distinct probe keys the check wrote. */
    synchronized List<String> probeKeys() {
      return calls.stream().filter(c -> c.operation().equals("WRITE") && c.target().startsWith(".tierlock-selfcheck/probe-"))
          .map(Call::target).distinct().toList();
    }

    private <T> T after(String operation, String target, String body, T answer) {
      boolean run;
      synchronized (this) {
        Call call = new Call(calls.size() + 1, operation, target, body);
        calls.add(call);
        run = when.test(call);
        if (run) {
          fired++;
        }
      }
      if (run) {
        hook.run();
      }
      return answer;
    }

    @Override
    public Optional<StoredObject> stat(ObjectKey key) {
      return after("STAT", key.value(), "", delegate.stat(key));
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      String text;
      try {
        text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return after("WRITE", key.value(), text, delegate.write(key, body, condition, metadata));
    }

    @Override
    public DeleteResult delete(ObjectKey key, WriteCondition condition) {
      return after("DELETE", key.value(), "", delegate.delete(key, condition));
    }

    @Override
    public List<StoredObject> list(String prefix) {
      return after("LIST", prefix, "", delegate.list(prefix));
    }
  }
}
