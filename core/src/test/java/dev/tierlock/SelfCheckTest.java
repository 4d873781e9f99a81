package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SelfCheckTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

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
    assertThat(probeWrites(store)).as("4 sequential probe writes, 2 rounds of 8 racing creates and of 1 + 8 swaps")
        .isEqualTo(4 + 2 * 8 + 2 * 9);
    assertThat(store.calls()).anyMatch(c -> c.startsWith("DELETE .tierlock-selfcheck/probe-") && c.contains("MustMatch"));
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
        .hasMessageContaining("(8 concurrent create-only writes of one fresh key had 8 winners, not exactly one");
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
  void probesLeftByACheckThatDied_areSweptOnceStale() {
    MemoryDatastore store = new MemoryDatastore();
    ObjectKey old = ObjectKey.of(".tierlock-selfcheck/probe-" + clock.instant().minus(Duration.ofHours(2)).toEpochMilli()
        + "-0c4e6a63-2a4b-4f4e-9a57-5f2a5c0b7d11");
    ObjectKey recent = ObjectKey.of(".tierlock-selfcheck/probe-" + clock.instant().minus(Duration.ofMinutes(5)).toEpochMilli()
        + "-1c4e6a63-2a4b-4f4e-9a57-5f2a5c0b7d11");
    for (ObjectKey k : List.of(old, recent)) {
      store.write(k, ObjectBody.of(new byte[] {1}), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
    }

    guard(store, "a").ensureChecked();

    assertThat(store.keys()).doesNotContain(old).contains(recent);
  }
}
