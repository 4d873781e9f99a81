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
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every fault kind, offline, latency and the log, through a wrapper around the fake remote. */
class FaultyDatastoreTest {

  private static final ObjectKey LOCKFILE = ObjectKey.of("config/upstream_extensions.json");
  private static final ObjectKey ARCHIVE = ObjectKey.of("archives/@acme/tool/1.0.0.tar.gz");

  private final FakeRemote remote = FakeRemote.create();
  private final FaultyDatastore store = FaultyDatastore.wrap(remote);

  @AfterEach
  void closeRemote() {
    remote.close();
  }

  @Test
  void failNext_unavailable_failsTheNextCallsWithoutApplyingThem() {
    store.faults().failNext(DatastoreOperation.WRITE, 2, Fault.UNAVAILABLE);

    for (int i = 0; i < 2; i++) {
      assertFails(() -> create(LOCKFILE, "x"), DatastoreUnavailableException.class, DatastoreUnavailableException.CODE,
          "Cannot write object " + LOCKFILE + " at " + remote.describe() + ": the store answered 503 (injected UNAVAILABLE)");
      assertThat(remote.peek(LOCKFILE)).isEmpty();
    }
    create(LOCKFILE, "x");

    assertThat(remote.peek(LOCKFILE)).hasValue(bytes("x"));
    assertThat(store.log().entries()).extracting(LoggedOperation::outcome)
        .containsExactly("FAULT:UNAVAILABLE", "FAULT:UNAVAILABLE", "WRITTEN");
  }

  @Test
  void failNext_throttled_saysThrottledAndAppliesNothing() {
    store.faults().failNext(DatastoreOperation.DELETE, 1, Fault.THROTTLED);
    create(LOCKFILE, "kept");

    assertFails(() -> store.delete(LOCKFILE, WriteCondition.none()), DatastoreUnavailableException.class,
        DatastoreUnavailableException.CODE, "throttled by the store, 429 or 503 SlowDown (injected THROTTLED)");

    assertThat(remote.peek(LOCKFILE)).hasValue(bytes("kept"));
  }

  @Test
  void failNext_accessDenied_throwsAccessDenied() {
    store.faults().failNext(DatastoreOperation.READ, 1, Fault.ACCESS_DENIED);
    create(LOCKFILE, "secret");

    assertFails(() -> store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES), DatastoreAccessDeniedException.class,
        DatastoreAccessDeniedException.CODE, "Cannot read object " + LOCKFILE);

    assertThat(store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES)).isInstanceOf(ReadResult.Found.class);
  }

  @Test
  void failNext_timeoutBeforeApplyOnWrite_isUnknownButNotApplied() {
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.TIMEOUT_BEFORE_APPLY);

    assertFails(() -> create(LOCKFILE, "x"), OutcomeUnknownException.class, OutcomeUnknownException.CODE,
        "no answer before the call timeout; the change may or may not have landed");

    assertThat(remote.peek(LOCKFILE)).isEmpty();
    assertThat(store.log().writtenKeys()).isEmpty();
  }

  @Test
  void failNext_timeoutBeforeApplyOnReads_isUnavailable() {
    for (DatastoreOperation operation : List.of(DatastoreOperation.READ, DatastoreOperation.OPEN_STREAM,
        DatastoreOperation.STAT, DatastoreOperation.LIST)) {
      store.faults().failNext(operation, 1, Fault.TIMEOUT_BEFORE_APPLY);

      assertFails(() -> call(operation), DatastoreUnavailableException.class, DatastoreUnavailableException.CODE,
          "no answer before the call timeout (injected TIMEOUT_BEFORE_APPLY)");
    }
    assertThat(store.log().entries()).extracting(LoggedOperation::outcome).containsOnly("FAULT:TIMEOUT_BEFORE_APPLY");
  }

  @Test
  void failNext_loseResponseOnWrite_appliesThenReportsUnknown() {
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);

    assertFails(() -> create(LOCKFILE, "landed"), OutcomeUnknownException.class, OutcomeUnknownException.CODE,
        "the answer was lost after the request was sent; the change may or may not have landed (injected LOSE_RESPONSE)");

    assertThat(remote.peek(LOCKFILE)).hasValue(bytes("landed"));
    assertThat(store.log().writtenKeys()).containsExactly(LOCKFILE);
    assertThat(store.log().entries()).containsExactly(
        new LoggedOperation(DatastoreOperation.WRITE, LOCKFILE.value(), "mustNotExist", "FAULT:LOSE_RESPONSE"));
    assertThat(store.log().entries().get(0).faulted()).isTrue();
  }

  @Test
  void failNext_loseResponseOnFailedPrecondition_isUnknownAndLandsNothing() {
    create(LOCKFILE, "first");
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);

    assertFails(() -> create(LOCKFILE, "second"), OutcomeUnknownException.class, OutcomeUnknownException.CODE,
        "Cannot write object " + LOCKFILE);

    assertThat(remote.peek(LOCKFILE)).hasValue(bytes("first"));
    assertThat(store.log().writtenKeys()).containsExactly(LOCKFILE);
  }

  @Test
  void failNext_loseResponseOnDelete_deletesThenReportsUnknown() {
    ObjectVersion version = create(LOCKFILE, "x");
    store.faults().failNext(DatastoreOperation.DELETE, 1, Fault.LOSE_RESPONSE);

    assertFails(() -> store.delete(LOCKFILE, WriteCondition.mustMatch(version)), OutcomeUnknownException.class,
        OutcomeUnknownException.CODE, "Cannot delete object " + LOCKFILE);

    assertThat(remote.peek(LOCKFILE)).isEmpty();
  }

  @Test
  void failNext_loseResponseOnReads_readsThenFailsAndClosesTheDownload() {
    create(ARCHIVE, "archive bytes");
    for (DatastoreOperation operation : List.of(DatastoreOperation.READ, DatastoreOperation.OPEN_STREAM,
        DatastoreOperation.STAT, DatastoreOperation.LIST)) {
      store.faults().failNext(operation, 1, Fault.LOSE_RESPONSE);

      assertFails(() -> call(operation), DatastoreUnavailableException.class, DatastoreUnavailableException.CODE,
          "the connection broke while the answer was read (injected LOSE_RESPONSE)");
    }
    assertThat(remote.log().count(DatastoreOperation.OPEN_STREAM)).isEqualTo(1);
    assertThat(remote.openStreams()).isEmpty();
  }

  @Test
  void failNext_otherOperation_passes() {
    store.faults().failNext(DatastoreOperation.READ, 1, Fault.UNAVAILABLE);

    create(LOCKFILE, "x");
    assertThat(store.stat(LOCKFILE)).isPresent();

    assertThat(store.faults().pending()).containsExactly("failNext(READ, 1 x UNAVAILABLE)");
  }

  @Test
  void offline_failsEveryCallUntilOnline() {
    create(LOCKFILE, "before");
    store.faults().failNext(DatastoreOperation.WRITE, 1, Fault.ACCESS_DENIED);
    store.faults().offline();

    for (DatastoreOperation operation : DatastoreOperation.values()) {
      assertFails(() -> call(operation), DatastoreUnavailableException.class, DatastoreUnavailableException.CODE,
          "the datastore is offline (injected OFFLINE)");
    }
    assertThat(remote.peek(LOCKFILE)).hasValue(bytes("before"));
    assertThat(store.faults().pending()).containsExactly("failNext(WRITE, 1 x ACCESS_DENIED)");

    store.faults().online();
    assertFails(() -> store.write(LOCKFILE, body("after"), WriteCondition.none(), ObjectMetadata.EMPTY),
        DatastoreAccessDeniedException.class, DatastoreAccessDeniedException.CODE, "access denied, 403 (injected ACCESS_DENIED)");
    written(store.write(LOCKFILE, body("after"), WriteCondition.none(), ObjectMetadata.EMPTY));
    assertThat(store.log().count(DatastoreOperation.WRITE)).isEqualTo(4);
  }

  @Test
  void latency_belowTimeout_sleepsThroughTheSleeperOnEveryCall() {
    TestClock clock = TestClock.create();
    store.faults().latency(Duration.ofSeconds(2), clock.sleeper(), Duration.ofSeconds(5));

    create(LOCKFILE, "x");
    assertThat(store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES)).isInstanceOf(ReadResult.Found.class);

    assertThat(clock.sleeps()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(2));
    assertThat(clock.instant()).isEqualTo(TestClock.DEFAULT_START.plusSeconds(4));
  }

  @Test
  void latency_aboveTimeout_failsAsTimeoutBeforeApply() {
    TestClock clock = TestClock.create();
    store.faults().latency(Duration.ofSeconds(31), clock.sleeper(), Duration.ofSeconds(30));

    assertFails(() -> create(LOCKFILE, "x"), OutcomeUnknownException.class, OutcomeUnknownException.CODE,
        "(injected TIMEOUT_BEFORE_APPLY)");
    assertFails(() -> store.stat(LOCKFILE), DatastoreUnavailableException.class, DatastoreUnavailableException.CODE,
        "no answer before the call timeout (injected TIMEOUT_BEFORE_APPLY)");

    assertThat(remote.peek(LOCKFILE)).isEmpty();
    assertThat(clock.slept()).isEqualTo(Duration.ofSeconds(62));
  }

  @Test
  void latency_interruptedSleep_failsAsUnavailableAndKeepsTheInterrupt() {
    store.faults().latency(Duration.ofSeconds(1), TestClock.create().sleeper(), Duration.ofSeconds(5));
    Thread.currentThread().interrupt();

    try {
      assertFails(() -> create(LOCKFILE, "x"), DatastoreUnavailableException.class, DatastoreUnavailableException.CODE,
          "interrupted while waiting for the injected latency; nothing was sent");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(remote.peek(LOCKFILE)).isEmpty();
  }

  @Test
  void log_recordsEveryCallWithConditionAndOutcome() {
    ObjectVersion v1 = create(LOCKFILE, "one");
    store.read(LOCKFILE, ReadCondition.ifNoneMatch(v1), Lockfile.MAX_BYTES);
    store.write(LOCKFILE, body("two"), WriteCondition.mustMatch(ObjectVersion.of("v999")), ObjectMetadata.EMPTY);
    store.read(ARCHIVE, ReadCondition.always(), Lockfile.MAX_BYTES);
    store.stat(LOCKFILE);
    store.list("config/");
    assertThatThrownBy(() -> store.delete(LOCKFILE, WriteCondition.mustNotExist()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mustNotExist is not a valid delete condition");
    store.delete(LOCKFILE, WriteCondition.mustMatch(v1));
    store.openStream(LOCKFILE);

    String k = LOCKFILE.value();
    assertThat(store.log().entries()).containsExactly(
        new LoggedOperation(DatastoreOperation.WRITE, k, "mustNotExist", "WRITTEN"),
        new LoggedOperation(DatastoreOperation.READ, k, "ifNoneMatch(" + v1 + ")", "NOT_MODIFIED"),
        new LoggedOperation(DatastoreOperation.WRITE, k, "mustMatch(v999)", "PRECONDITION_FAILED"),
        new LoggedOperation(DatastoreOperation.READ, ARCHIVE.value(), "always", "ABSENT"),
        new LoggedOperation(DatastoreOperation.STAT, k, "always", "FOUND"),
        new LoggedOperation(DatastoreOperation.LIST, "config/", "always", "LISTED:1"),
        new LoggedOperation(DatastoreOperation.DELETE, k, "mustNotExist", "ERROR:IllegalArgumentException"),
        new LoggedOperation(DatastoreOperation.DELETE, k, "mustMatch(" + v1 + ")", "DELETED"),
        new LoggedOperation(DatastoreOperation.OPEN_STREAM, k, "always", "ABSENT"));
    assertThat(store.log().count(DatastoreOperation.WRITE)).isEqualTo(2);
    assertThat(store.log().count(DatastoreOperation.DELETE)).isEqualTo(2);
    assertThat(store.log().size()).isEqualTo(9);
    assertThat(store.log().writtenKeys()).containsExactly(LOCKFILE);
    assertThat(store.log().entries()).noneMatch(LoggedOperation::faulted);

    store.log().clear();
    assertThat(store.log().entries()).isEmpty();
    assertThat(store.log().count(DatastoreOperation.WRITE)).isZero();
  }

  @Test
  void loggedOperation_blankOutcome_isRejected() {
    assertThatThrownBy(() -> new LoggedOperation(DatastoreOperation.LIST, "", "always", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot log operation LIST on \"\": condition and outcome are never blank");
  }

  @Test
  void wrap_exposesTheDelegateAndClosesIt() {
    assertThat(store.delegate()).isSameAs(remote);
    assertThat(store.describe()).isEqualTo(remote.describe()).startsWith("fake://");

    store.close();

    assertThatThrownBy(() -> remote.peek(LOCKFILE)).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot read object " + LOCKFILE + " at " + remote.describe() + ": the fake remote is closed");
  }

  private ObjectVersion create(ObjectKey key, String content) {
    return written(store.write(key, body(content), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY));
  }

  private Object call(DatastoreOperation operation) throws IOException {
    return switch (operation) {
      case READ -> store.read(ARCHIVE, ReadCondition.always(), Lockfile.MAX_BYTES);
      case OPEN_STREAM -> {
        var opened = store.openStream(ARCHIVE);
        if (opened.isPresent()) {
          opened.get().close();
        }
        yield opened;
      }
      case STAT -> store.stat(ARCHIVE);
      case WRITE -> store.write(ARCHIVE, body("w"), WriteCondition.none(), ObjectMetadata.EMPTY);
      case DELETE -> store.delete(ARCHIVE, WriteCondition.none());
      case LIST -> store.list("");
    };
  }
}
