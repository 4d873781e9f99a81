package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PendingRecordTest {

  private static final ExtensionName A = ExtensionName.of("@s/a");
  private static final ExtensionName B = ExtensionName.of("@s/b");
  private static final LockfileEntry ONE = LockfileEntry.builder("1", "2026-01-01T00:00:00.000Z").build();
  private static final LockfileEntry TWO = LockfileEntry.builder("2", "2026-01-02T00:00:00.000Z").checksum("c".repeat(64))
      .unknownField("future", "{\"n\":1.50}").build();

  private static final dev.tierlock.spi.DatastoreIdentity STORE =
      new dev.tierlock.spi.DatastoreIdentity("fake", "one", "", "");

  @TempDir Path dir;

  private PendingRecord record() {
    return new PendingRecord(dir, Namespace.NONE, STORE);
  }

  private Path file() {
    return dir.resolve(PendingRecord.FILE_NAME);
  }

  @Test
  void noFile_isNothingPending() {
    assertThat(record().read()).isEqualTo(PendingRecord.None.INSTANCE);
    assertThat(record().view(record().read())).isEmpty();
  }

  @Test
  void aChange_roundTripsWithItsBaseAttemptAndVerdict() {
    LockfileDelta delta = LockfileDelta.of(java.util.Map.of(A, TWO), List.of(B));
    Lockfile base = Lockfile.of(java.util.Map.of(A, ONE, B, ONE, ExtensionName.of("@s/untouched"), ONE));
    LockfileHead parent = new LockfileHead(ObjectVersion.of("\"etag 1\""), List.of("c1", "c0"));
    Commit change = new Commit(delta, base, new Commit.Attempt("c2", parent), null);

    record().record(change);
    PendingRecord.Stored read = record().read();

    assertThat(read).isEqualTo(new PendingRecord.Recorded(new Commit(delta, base.restrictedTo(delta.names()),
        change.attempt(), null)));
    assertThat(record().view(read).orElseThrow().state()).isEqualTo(PendingChange.State.IN_FLIGHT);
    assertThat(record().view(read).orElseThrow().commitId()).contains("c2");

    record().record(change.unknown("it cannot be proven"));
    PendingChange unknown = record().view(record().read()).orElseThrow();
    assertThat(unknown.state()).isEqualTo(PendingChange.State.OUTCOME_UNKNOWN);
    assertThat(unknown.reason()).contains("it cannot be proven");
    assertThat(unknown.blocksTransactions()).isTrue();

    record().record(new Commit(change.delta(), change.base(), null, null));
    assertThat(record().view(record().read()).orElseThrow().state()).isEqualTo(PendingChange.State.UNPUBLISHED);
    record().discard();
    assertThat(record().read()).isEqualTo(PendingRecord.None.INSTANCE);
    assertThat(record().view(record().read())).isEmpty();
  }

  @Test
  void aRecord_isRewrittenInPlace_andSettlingKeepsTheFileSayingNothingIsPending() throws Exception {
    Commit change = new Commit(LockfileDelta.of(java.util.Map.of(A, ONE), List.of()), Lockfile.EMPTY, null, null);
    record().record(change);
    Object created = Files.readAttributes(file(), java.nio.file.attribute.BasicFileAttributes.class).fileKey();

    record().record(new Commit(LockfileDelta.of(java.util.Map.of(A, TWO), List.of()), Lockfile.EMPTY, null, null));
    record().settle();
    assertThat(record().read()).isEqualTo(PendingRecord.None.INSTANCE);
    record().record(change);

    assertThat(record().read()).isEqualTo(new PendingRecord.Recorded(change));
    // no temp file renamed over it, no delete: the same file throughout, so no directory needs forcing
    assertThat(Files.readAttributes(file(), java.nio.file.attribute.BasicFileAttributes.class).fileKey())
        .isNotNull().isEqualTo(created);
  }

  @Test
  void aRecordOfANewerVersion_isUnreadable_andNamesWhy() throws Exception {
    Files.writeString(file(), "{\"version\":5,\"upserts\":{},\"removals\":[]}");

    PendingChange view = record().view(record().read()).orElseThrow();

    assertThat(view.state()).isEqualTo(PendingChange.State.UNREADABLE);
    assertThat(view.reason()).contains("the record has format version 5, written by a newer Tierlock (this one reads up"
        + " to 4); publish it with that version, or discard it");
    assertThat(view.blocksTransactions()).isTrue();
  }

  @Test
  void garbage_isUnreadable_neverNothing() throws Exception {
    for (String text : List.of("{oops", "[]", "{\"version\":\"3\"}", "{\"version\":3,\"upserts\":{\"bad name\":{}}}",
        "{\"version\":3,\"upserts\":{\"@s/a\":{\"version\":\"\"}}}", "{\"version\":3,\"outcome\":\"maybe\"}")) {
      Files.writeString(file(), text);
      assertThat(record().read()).as(text).isInstanceOf(PendingRecord.Unreadable.class);
    }
    Files.write(file(), new byte[] {(byte) 0xff, (byte) 0xfe});
    assertThat(record().read()).isEqualTo(new PendingRecord.Unreadable("the file is not UTF-8 text"));
  }

  @Test
  void olderRecords_areRead_anInterruptedOneAsOutcomeUnknown() throws Exception {
    Files.writeString(file(), "{\"version\":1,\"upserts\":{\"@s/a\":{\"version\":\"1\",\"pulledAt\":\"2026-01-01T00:00:00.000Z\"}},"
        + "\"removals\":[\"@s/b\"]}");
    Commit v1 = ((PendingRecord.Recorded) record().read()).commit();
    assertThat(v1.delta()).isEqualTo(LockfileDelta.of(java.util.Map.of(A, ONE), List.of(B)));
    assertThat(v1.base()).as("the original tool's record says nothing of its base").isNull();

    Files.writeString(file(), "{\"version\":2,\"upserts\":{},\"removals\":[\"@s/b\"],\"incomplete\":true,\"base\":{"
        + "\"@s/b\":{\"version\":\"1\",\"pulledAt\":\"2026-01-01T00:00:00.000Z\"},"
        + "\"@s/other\":{\"version\":\"1\",\"pulledAt\":\"2026-01-01T00:00:00.000Z\"}}}");
    PendingChange interrupted = record().view(record().read()).orElseThrow();
    assertThat(interrupted.state()).isEqualTo(PendingChange.State.OUTCOME_UNKNOWN);
    assertThat(interrupted.delta()).isEqualTo(LockfileDelta.removal(B));
    assertThat(interrupted.reason()).hasValueSatisfying(r -> assertThat(r).contains("interrupted"));
  }

  @Test
  void aRecordIsBoundToItsLockfileAndDatastore_andNamespacesKeepOneEach() {
    Commit change = new Commit(LockfileDelta.removal(B), Lockfile.EMPTY, null, null);
    record().record(change);

    PendingRecord elsewhere = new PendingRecord(dir, Namespace.NONE, new dev.tierlock.spi.DatastoreIdentity("fake", "two", "", ""));
    assertThat(elsewhere.read()).as("the same checkout pointed at another datastore")
        .isInstanceOf(PendingRecord.Unreadable.class);
    assertThat(((PendingRecord.Unreadable) elsewhere.read()).reason()).contains("made for datastore \"fake:// at one\"")
        .contains("discard it");
    PendingRecord team = new PendingRecord(dir, Namespace.of("team"), STORE);
    assertThat(team.read()).as("another namespace has its own record").isEqualTo(PendingRecord.None.INSTANCE);
    assertThat(team.path()).isEqualTo(dir.resolve("namespaces").resolve("team").resolve(PendingRecord.FILE_NAME));
    team.record(change);
    assertThat(team.read()).isEqualTo(new PendingRecord.Recorded(change));
    assertThat(record().read()).isEqualTo(new PendingRecord.Recorded(change));
  }

  @Test
  void deletionsThatAreNotArchives_makeTheRecordUnreadable() throws Exception {
    for (String path : List.of("config/upstream_extensions.json", "config/other", "config/pulled-archives/@s/a/short.tar.gz")) {
      Files.writeString(file(), "{\"version\":3,\"upserts\":{},\"removals\":[],\"base\":{},\"deletions\":[\"" + path
          + "\"]}");
      assertThat(record().read()).as(path).isInstanceOf(PendingRecord.Unreadable.class);
      assertThat(((PendingRecord.Unreadable) record().read()).reason()).contains("not an extension archive");
    }
  }
}
