package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PendingChangeStoreTest {

  private static final ExtensionName A = ExtensionName.of("@s/a");
  private static final ExtensionName B = ExtensionName.of("@s/b");
  private static final ExtensionName C = ExtensionName.of("@s/c");

  @TempDir Path state;

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, "2026-01-01T00:00:00.000Z").build();
  }

  @Test
  void read_noFile_isNone() {
    assertThat(PendingChangeStore.in(state).read()).isEqualTo(PendingChange.None.INSTANCE);
  }

  @Test
  void record_thenRead_returnsTheDeltaAndTheBaseOfItsNames() {
    PendingChangeStore store = PendingChangeStore.in(state);
    LockfileDelta delta = LockfileDelta.of(Map.of(A, entry("2")), List.of(B));
    Lockfile base = Lockfile.EMPTY.with(A, entry("1")).with(B, entry("1")).with(C, entry("1"));

    store.record(delta, base);

    PendingChange read = store.read();
    assertThat(read).isInstanceOf(PendingChange.Recorded.class);
    PendingChange.Recorded recorded = (PendingChange.Recorded) read;
    assertThat(recorded.delta()).isEqualTo(delta);
    assertThat(recorded.base()).contains(Lockfile.EMPTY.with(A, entry("1")).with(B, entry("1")));
    assertThat(recorded.isIncomplete()).isFalse();
    assertThat(recorded.incompleteBase()).isEmpty();
    assertThat(store.path()).isEqualTo(state.toAbsolutePath().resolve("managed-config-lockfile-unpublished"));
  }

  @Test
  void recordIncomplete_keepsTheWholeBase() throws IOException {
    PendingChangeStore store = PendingChangeStore.in(state);
    Lockfile base = Lockfile.EMPTY.with(A, entry("1")).with(C, entry("1"));

    store.recordIncomplete(LockfileDelta.removal(B), base);

    PendingChange.Recorded recorded = (PendingChange.Recorded) store.read();
    assertThat(recorded.isIncomplete()).isTrue();
    assertThat(recorded.incompleteBase()).contains(base);
    assertThat(Files.readString(store.path())).startsWith("""
        {
          "version": 2,
          "upserts": {},
          "removals": [
            "@s/b"
          ],
          "incomplete": true,
          "base": {""");
  }

  @Test
  void clear_removesTheRecord() {
    PendingChangeStore store = PendingChangeStore.in(state);
    store.record(LockfileDelta.removal(A), Lockfile.EMPTY);

    store.clear();
    store.clear();

    assertThat(store.read()).isEqualTo(PendingChange.None.INSTANCE);
    assertThat(store.path()).doesNotExist();
  }

  @Test
  void read_invalidContent_isUnknownWithAReason() throws IOException {
    PendingChangeStore store = PendingChangeStore.in(state);
    Map<String, String> cases = Map.of(
        "2026-01-01T00:00:00.000Z", "Cannot parse JSON value",
        "{\"version\":3,\"upserts\":{},\"removals\":[]}", "version is not 1 or 2",
        "{\"version\":1,\"upserts\":{\"@s/a\":{\"pulledAt\":\"t\"}},\"removals\":[]}", "has no \"version\"",
        "{\"version\":1,\"upserts\":{},\"removals\":[\"NotAName\"]}", "not an extension name",
        "{\"version\":1,\"upserts\":{},\"removals\":[],\"incomplete\":true}", "incomplete but has no base",
        "{\"version\":1,\"upserts\":{\"@s/a\":{\"version\":\"1\",\"pulledAt\":\"t\"}},\"removals\":[\"@s/a\"]}",
        "both upserted and removed",
        "{\"version\":2,\"upserts\":{},\"removals\":[],\"base\":{},\"attempt\":[]}", "\"attempt\" is not an object",
        "{\"version\":2,\"upserts\":{},\"removals\":[],\"base\":{},\"attempt\":{\"commit\":\"no spaces\"}}",
        "Cannot use commit id",
        "{\"version\":2,\"upserts\":{},\"removals\":[],\"base\":{},\"incomplete\":true,\"attempt\":{\"commit\":\"c1\"}}",
        "incomplete but has a publish attempt",
        "[]", "not a JSON object");

    for (Map.Entry<String, String> c : cases.entrySet()) {
      Files.writeString(store.path(), c.getKey());
      assertThat(store.read())
          .as(c.getKey())
          .isInstanceOfSatisfying(PendingChange.Unknown.class, u -> assertThat(u.reason()).contains(c.getValue()));
    }
    Files.write(store.path(), new byte[] {(byte) 0xff, (byte) 0xfe});
    assertThat(store.read()).isInstanceOfSatisfying(PendingChange.Unknown.class,
        u -> assertThat(u.reason()).isEqualTo("the file is not UTF-8 text"));
  }

  @Test
  void read_recordWithoutBase_isRecordedWithoutBase() throws IOException {
    PendingChangeStore store = PendingChangeStore.in(state);
    Files.writeString(store.path(), "{\"version\":1,\"upserts\":{\"@s/a\":{\"version\":\"1\",\"pulledAt\":\"t\"}},\"removals\":[]}");

    PendingChange.Recorded recorded = (PendingChange.Recorded) store.read();

    assertThat(recorded.delta().upserts()).containsOnlyKeys(A);
    assertThat(recorded.base()).isEmpty();
  }

  @Test
  void record_withDeletions_keepsThem() {
    PendingChangeStore store = PendingChangeStore.in(state);
    TierPath old = TierPath.of("config/pulled-archives/@s/a/" + "b".repeat(64) + ".tar.gz");

    store.record(LockfileDelta.upsert(A, entry("1")), Lockfile.EMPTY, List.of(old));

    PendingChange.Recorded recorded = (PendingChange.Recorded) store.read();
    assertThat(recorded.deletions()).containsExactly(old);
    assertThat(recorded.attempt()).isEmpty();
  }

  @Test
  void recordAttempt_keepsTheCommitAndTheVersionItIsConditionedOn() {
    PendingChangeStore store = PendingChangeStore.in(state);
    LockfileHead parent = new LockfileHead(ObjectVersion.of("v7"), List.of("c2", "c1"));
    LockfileDelta delta = LockfileDelta.upsert(A, entry("2"));

    store.recordAttempt(delta, Lockfile.EMPTY.with(A, entry("1")).with(B, entry("1")), List.of(),
        PendingChange.Attempt.on(parent, "c3"));

    PendingChange.Recorded recorded = (PendingChange.Recorded) store.read();
    assertThat(recorded.delta()).isEqualTo(delta);
    assertThat(recorded.base()).contains(Lockfile.EMPTY.with(A, entry("1")));
    assertThat(recorded.attempt()).hasValueSatisfying(attempt -> {
      assertThat(attempt.commitId()).isEqualTo("c3");
      assertThat(attempt.parent()).contains(parent);
    });
    store.recordAttempt(delta, Lockfile.EMPTY, List.of(), PendingChange.Attempt.creating("c4"));
    assertThat(((PendingChange.Recorded) store.read()).attempt())
        .hasValueSatisfying(attempt -> assertThat(attempt.parent()).isEmpty());
    store.record(delta, Lockfile.EMPTY);
    assertThat(((PendingChange.Recorded) store.read()).attempt()).as("a definite non-landing forgets it").isEmpty();
  }

  @Test
  void read_aVersion1RecordOfThisTool_isStillRead() throws IOException {
    PendingChangeStore store = PendingChangeStore.in(state);
    Files.writeString(store.path(), "{\"version\":1,\"upserts\":{},\"removals\":[\"@s/a\"],\"base\":{},"
        + "\"createOnly\":[\"config/pulled-archives/@s/a/" + "a".repeat(64) + ".tar.gz\"]}");

    PendingChange.Recorded recorded = (PendingChange.Recorded) store.read();

    assertThat(recorded.delta()).isEqualTo(LockfileDelta.removal(A));
    assertThat(recorded.base()).contains(Lockfile.EMPTY);
    assertThat(recorded.attempt()).isEmpty();
  }

  @Test
  void read_anInternalPathInTheRecord_isUnknown() throws IOException {
    PendingChangeStore store = PendingChangeStore.in(state);
    Files.writeString(store.path(), "{\"version\":2,\"upserts\":{},\"removals\":[],\"deletions\":[\"config/x.lock\"]}");

    assertThat(store.read()).isInstanceOfSatisfying(PendingChange.Unknown.class,
        u -> assertThat(u.reason()).isEqualTo("Cannot use tier path \"config/x.lock\": lock files never leave the checkout"));
  }
}
