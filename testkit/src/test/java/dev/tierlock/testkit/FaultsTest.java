package dev.tierlock.testkit;

import static dev.tierlock.testkit.StoreSteps.assertFails;
import static dev.tierlock.testkit.StoreSteps.body;
import static dev.tierlock.testkit.StoreSteps.bytes;
import static dev.tierlock.testkit.StoreSteps.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fault controls: key predicates, rule order, hooks, broken and corrupted downloads, clearing, bad input. */
class FaultsTest {

  private static final ObjectKey LOCKFILE = ObjectKey.of("config/upstream_extensions.json");
  private static final ObjectKey ARCHIVE = ObjectKey.of("archives/@acme/tool/1.0.0.tar.gz");

  private final FakeRemote remote = FakeRemote.create();
  private final FaultyDatastore store = FaultyDatastore.wrap(remote);

  @AfterEach
  void closeRemote() {
    remote.close();
  }

  @Test
  void failNext_keyPredicate_failsOnlyMatchingKeys() {
    store.faults().failNext(DatastoreOperation.WRITE, k -> k.value().startsWith("config/"), 1, Fault.UNAVAILABLE);

    create(ARCHIVE, "not matched");
    assertFails(() -> create(LOCKFILE, "x"), DatastoreUnavailableException.class, DatastoreUnavailableException.CODE,
        "Cannot write object " + LOCKFILE);
    create(LOCKFILE, "x");

    assertThat(remote.keys()).containsExactly(ARCHIVE, LOCKFILE);
    assertThat(store.faults().pending()).isEmpty();
  }

  @Test
  void failNext_keyPredicateOnList_neverMatches() {
    store.faults().failNext(DatastoreOperation.LIST, k -> true, 1, Fault.UNAVAILABLE);

    assertThat(store.list("")).isEmpty();
    assertThat(store.faults().pending()).containsExactly("failNext(LIST, 1 x UNAVAILABLE)");

    store.faults().clear();
    store.faults().failNext(DatastoreOperation.LIST, 1, Fault.UNAVAILABLE);
    assertFails(() -> store.list("config/"), DatastoreUnavailableException.class, DatastoreUnavailableException.CODE,
        "Cannot list prefix \"config/\" at " + remote.describe());
  }

  @Test
  void failNext_severalRules_areConsumedInRegistrationOrder() {
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.THROTTLED).failNext(DatastoreOperation.WRITE, 1, Fault.ACCESS_DENIED);

    assertFails(() -> create(LOCKFILE, "x"), DatastoreUnavailableException.class, DatastoreUnavailableException.CODE,
        "(injected THROTTLED)");
    assertFails(() -> create(LOCKFILE, "x"), DatastoreAccessDeniedException.class, DatastoreAccessDeniedException.CODE,
        "(injected ACCESS_DENIED)");
    create(LOCKFILE, "x");
  }

  @Test
  void failNext_nonPositiveTimes_isRejectedAndChangesNothing() {
    assertThatThrownBy(() -> store.faults().failNext(DatastoreOperation.WRITE, 0, Fault.UNAVAILABLE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot inject fault UNAVAILABLE into WRITE: times must be positive, got 0");

    assertThat(store.faults().pending()).isEmpty();
    create(LOCKFILE, "x");
  }

  @Test
  void latency_negative_isRejected() {
    assertThatThrownBy(() -> store.faults().latency(Duration.ofSeconds(-1), d -> { }, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot inject latency PT-1S with timeout PT0S: durations are never negative");
  }

  @Test
  void beforeNext_pausedHolder_losesToAPeerThatActedMeanwhile() {
    TestClock clock = TestClock.create();
    ObjectVersion held = create(LOCKFILE, "holder's base");
    List<String> events = new ArrayList<>();
    store.faults().beforeNext(DatastoreOperation.WRITE, LOCKFILE::equals, () -> {
      clock.advance(Duration.ofSeconds(31));
      events.add("paused until " + clock.instant());
      written(store.write(LOCKFILE, body("peer's write"), WriteCondition.mustMatch(held), ObjectMetadata.EMPTY));
    });

    WriteResult late = store.write(LOCKFILE, body("holder's write"), WriteCondition.mustMatch(held), ObjectMetadata.EMPTY);

    assertThat(late).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertThat(events).containsExactly("paused until 2026-01-01T00:00:31Z");
    assertThat(remote.peek(LOCKFILE)).hasValue(bytes("peer's write"));
    assertThat(store.log().entries(DatastoreOperation.WRITE)).extracting(LoggedOperation::outcome)
        .containsExactly("WRITTEN", "WRITTEN", "PRECONDITION_FAILED");
    assertThat(store.faults().pendingHooks()).isZero();
  }

  @Test
  void beforeNext_hooks_fireOncePerMatchingCallInOrder() {
    AtomicInteger first = new AtomicInteger();
    AtomicInteger second = new AtomicInteger();
    store.faults()
        .beforeNext(DatastoreOperation.READ, LOCKFILE::equals, first::incrementAndGet)
        .beforeNext(DatastoreOperation.READ, LOCKFILE::equals, () -> second.addAndGet(first.get() * 10));

    store.read(ARCHIVE, ReadCondition.always(), Lockfile.MAX_BYTES);
    assertThat(first.get() + second.get()).isZero();
    store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES);
    store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES);
    store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES);

    assertThat(first).hasValue(1);
    assertThat(second).hasValue(10);
    assertThat(store.faults().pendingHooks()).isZero();
  }

  @Test
  void beforeNext_throwingHook_failsTheCallBeforeItApplies() {
    store.faults().beforeNext(DatastoreOperation.WRITE, k -> true, () -> {
      throw new IllegalStateException("peer crashed");
    });

    assertThatThrownBy(() -> create(LOCKFILE, "x")).isInstanceOf(IllegalStateException.class).hasMessage("peer crashed");

    assertThat(remote.peek(LOCKFILE)).isEmpty();
    assertThat(store.log().entries()).containsExactly(
        new LoggedOperation(DatastoreOperation.WRITE, LOCKFILE.value(), "mustNotExist", "ERROR:IllegalStateException"));
  }

  @Test
  void afterNext_runsOnceTheWriteLanded_andWhatItThrowsReplacesTheAnswer() {
    List<String> seen = new ArrayList<>();
    store.faults().afterNext(DatastoreOperation.WRITE, LOCKFILE::equals, () -> {
      seen.add("after the write: " + new String(remote.peek(LOCKFILE).orElseThrow(), java.nio.charset.StandardCharsets.UTF_8));
      throw new IllegalStateException("the process died right after its write");
    });

    assertThatThrownBy(() -> create(LOCKFILE, "landed"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the process died right after its write");

    assertThat(seen).containsExactly("after the write: landed");
    assertThat(store.log().entries()).containsExactly(
        new LoggedOperation(DatastoreOperation.WRITE, LOCKFILE.value(), "mustNotExist", "WRITTEN"));
    assertThat(store.log().writtenKeys()).containsExactly(LOCKFILE);
    assertThat(store.faults().pendingHooks()).isZero();
    create(ARCHIVE, "no hook left");
  }

  @Test
  void afterNext_isNotConsumedByACallThatNeverReachedTheStore_andRunsAfterALostAnswer() {
    AtomicInteger runs = new AtomicInteger();
    store.faults()
        .failNext(DatastoreOperation.WRITE, 1, Fault.TIMEOUT_BEFORE_APPLY)
        .failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE)
        .afterNext(DatastoreOperation.WRITE, LOCKFILE::equals, runs::incrementAndGet);
    assertThat(store.faults().pending()).contains("afterNext(WRITE)");

    assertFails(() -> create(LOCKFILE, "never sent"), dev.tierlock.spi.OutcomeUnknownException.class, "outcome_unknown",
        "injected TIMEOUT_BEFORE_APPLY");
    assertThat(runs).as("a call refused before the store does not consume the hook").hasValue(0);
    assertThat(store.faults().pendingHooks()).isEqualTo(1);
    assertFails(() -> create(LOCKFILE, "landed"), dev.tierlock.spi.OutcomeUnknownException.class, "outcome_unknown",
        "injected LOSE_RESPONSE");

    assertThat(runs).hasValue(1);
    assertThat(remote.peek(LOCKFILE)).hasValue(bytes("landed"));
    assertThat(store.faults().pendingHooks()).isZero();
  }

  @Test
  void afterNext_afterARefusedWriteOrAStoreError_runsAndKeepsTheStoresAnswer() {
    AtomicInteger runs = new AtomicInteger();
    create(LOCKFILE, "first");
    store.faults().afterNext(DatastoreOperation.WRITE, LOCKFILE::equals, runs::incrementAndGet)
        .afterNext(DatastoreOperation.WRITE, LOCKFILE::equals, runs::incrementAndGet);

    assertThat(store.write(LOCKFILE, body("second"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertThatThrownBy(() -> store.write(LOCKFILE, body("third"), WriteCondition.none(),
        ObjectMetadata.of("m", "x".repeat(FakeRemote.DEFAULT_MAX_METADATA_BYTES))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot write ");

    assertThat(runs).hasValue(2);
    assertThat(remote.peek(LOCKFILE)).hasValue(bytes("first"));
  }

  @Test
  void breakNextStream_yieldsThePrefixThenFails() throws IOException {
    create(ARCHIVE, "0123456789abcdef");
    store.faults().breakNextStream(ARCHIVE::equals, 10);

    try (ObjectStream stream = store.openStream(ARCHIVE).orElseThrow(); InputStream in = stream.stream()) {
      assertThat(stream.object().size()).isEqualTo(16);
      assertThat(in.readNBytes(10)).isEqualTo(bytes("0123456789"));
      assertThatThrownBy(in::read).isInstanceOf(IOException.class)
          .hasMessage("Cannot read object " + ARCHIVE + ": connection reset after 10 bytes (injected breakNextStream)");
    }
    try (ObjectStream stream = store.openStream(ARCHIVE).orElseThrow()) {
      assertThat(stream.stream().readAllBytes()).isEqualTo(bytes("0123456789abcdef"));
    }
    assertThat(store.log().entries()).extracting(LoggedOperation::outcome).containsExactly("WRITTEN", "FAULT:BROKEN_STREAM", "FOUND");
    assertThat(remote.openStreams()).isEmpty();
  }

  @Test
  void breakNextStream_negativeCount_isRejected() {
    assertThatThrownBy(() -> store.faults().breakNextStream(k -> true, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot break a stream after -1 bytes: the count is never negative");
    assertThat(store.faults().pending()).isEmpty();
  }

  @Test
  void corruptNextRead_flipsTheLastByteOnce() throws IOException {
    ObjectVersion version = create(ARCHIVE, "abc");
    store.faults().corruptNextRead(ARCHIVE::equals).corruptNextRead(ARCHIVE::equals);

    ReadResult.Found corrupted = (ReadResult.Found) store.read(ARCHIVE, ReadCondition.always(), Lockfile.MAX_BYTES);
    byte[] streamed;
    try (ObjectStream stream = store.openStream(ARCHIVE).orElseThrow()) {
      streamed = stream.stream().readAllBytes();
    }
    ReadResult.Found clean = (ReadResult.Found) store.read(ARCHIVE, ReadCondition.always(), Lockfile.MAX_BYTES);

    byte[] expected = {'a', 'b', (byte) ('c' ^ 0xff)};
    assertThat(corrupted.bytes()).isEqualTo(expected);
    assertThat(corrupted.object().version()).isEqualTo(version);
    assertThat(streamed).isEqualTo(expected);
    assertThat(clean.bytes()).isEqualTo(bytes("abc"));
    assertThat(remote.peek(ARCHIVE)).hasValue(bytes("abc"));
  }

  @Test
  void clear_removesEveryFaultHookAndLatencyAndGoesOnline() throws IOException {
    TestClock clock = TestClock.create();
    store.faults()
        .failNext(DatastoreOperation.WRITE, 3, Fault.UNAVAILABLE)
        .beforeNext(DatastoreOperation.WRITE, k -> true, () -> clock.advance(Duration.ofHours(1)))
        .afterNext(DatastoreOperation.WRITE, k -> true, () -> clock.advance(Duration.ofHours(1)))
        .latency(Duration.ofSeconds(1), clock.sleeper(), Duration.ofSeconds(2))
        .breakNextStream(k -> true, 0)
        .corruptNextRead(k -> true)
        .offline();
    assertThat(store.faults().pending()).hasSize(5);

    store.faults().clear();
    create(LOCKFILE, "x");

    assertThat(((ReadResult.Found) store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES)).bytes()).isEqualTo(bytes("x"));
    try (ObjectStream stream = store.openStream(LOCKFILE).orElseThrow()) {
      assertThat(stream.stream().readAllBytes()).isEqualTo(bytes("x"));
    }
    assertThat(store.faults().pending()).isEmpty();
    assertThat(store.faults().pendingHooks()).isZero();
    assertThat(clock.instant()).isEqualTo(TestClock.DEFAULT_START);
  }

  private ObjectVersion create(ObjectKey key, String content) {
    return written(store.write(key, body(content), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY));
  }
}
