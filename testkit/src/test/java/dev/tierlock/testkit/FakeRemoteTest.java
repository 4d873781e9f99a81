package dev.tierlock.testkit;

import static dev.tierlock.testkit.StoreSteps.body;
import static dev.tierlock.testkit.StoreSteps.bytes;
import static dev.tierlock.testkit.StoreSteps.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FakeRemoteTest {

  private static final ObjectKey LOCKFILE = ObjectKey.of("config/upstream_extensions.json");

  @Test
  void create_close_deletesTheTempDirectory() {
    FakeRemote remote = FakeRemote.create();
    write(remote, LOCKFILE, "x", WriteCondition.none());
    Path directory = remote.directory();
    assertThat(directory).isDirectory();
    assertThat(remote.describe()).isEqualTo("fake://" + directory);

    remote.close();
    remote.close();

    assertThat(directory).doesNotExist();
  }

  @Test
  void inDirectory_reopened_keepsObjectsVersionsAndMetadata(@TempDir Path directory) {
    ObjectMetadata metadata = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c-1");
    StoredObject before;
    try (FakeRemote remote = FakeRemote.inDirectory(directory)) {
      write(remote, LOCKFILE, "old", WriteCondition.none());
      written(remote.write(LOCKFILE, body("{\"\u00e9\": 1}"), WriteCondition.none(), metadata));
      write(remote, ObjectKey.of("unicode/\u65e5\u672c.json"), "u", WriteCondition.none());
      before = remote.peekObject(LOCKFILE).orElseThrow();
    }
    assertThat(directory).isDirectory();

    try (FakeRemote reopened = FakeRemote.inDirectory(directory)) {
      assertThat(reopened.peekObject(LOCKFILE)).contains(before);
      assertThat(reopened.peek(LOCKFILE)).hasValue(bytes("{\"\u00e9\": 1}"));
      assertThat(reopened.keys()).containsExactly(LOCKFILE, ObjectKey.of("unicode/\u65e5\u672c.json"));
      ObjectVersion next = write(reopened, LOCKFILE, "new", WriteCondition.mustMatch(before.version()));
      assertThat(next).isEqualTo(ObjectVersion.of("v4"));
    }
  }

  @Test
  void inDirectory_reopened_neverReusesTheVersionOfADeletedObject(@TempDir Path directory) {
    ObjectKey gone = ObjectKey.of("gone");
    ObjectVersion deleted;
    try (FakeRemote remote = FakeRemote.inDirectory(directory)) {
      write(remote, LOCKFILE, "stays", WriteCondition.none());
      deleted = write(remote, gone, "deleted", WriteCondition.none());
      remote.erase(gone);
    }

    try (FakeRemote reopened = FakeRemote.inDirectory(directory)) {
      ObjectVersion recreated = write(reopened, gone, "recreated", WriteCondition.mustNotExist());

      assertThat(recreated).isNotEqualTo(deleted).isEqualTo(ObjectVersion.of("v3"));
    }
  }

  @Test
  void inDirectory_alreadyOpen_isRejected(@TempDir Path directory) {
    try (FakeRemote first = FakeRemote.inDirectory(directory)) {
      assertThatThrownBy(() -> FakeRemote.inDirectory(directory))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot open fake remote in " + directory.toAbsolutePath().normalize()
              + ": another open FakeRemote owns it");
      assertThat(first.keys()).isEmpty();
    }
  }

  @Test
  void close_thenEveryCallThrows() {
    FakeRemote remote = FakeRemote.create();
    remote.close();

    assertThatThrownBy(() -> remote.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot read object " + LOCKFILE + " at " + remote.describe() + ": the fake remote is closed");
    assertThatThrownBy(() -> remote.write(LOCKFILE, body("x"), WriteCondition.none(), ObjectMetadata.EMPTY))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Cannot write object " + LOCKFILE);
    assertThatThrownBy(() -> remote.list("")).isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Cannot list prefix \"\"");
  }

  @Test
  void versions_increaseAcrossTheStoreAndAreNeverReused() {
    try (FakeRemote remote = FakeRemote.create()) {
      ObjectVersion a = write(remote, ObjectKey.of("a"), "same", WriteCondition.none());
      ObjectVersion b = write(remote, ObjectKey.of("b"), "same", WriteCondition.none());
      ObjectVersion a2 = write(remote, ObjectKey.of("a"), "same", WriteCondition.none());
      remote.delete(ObjectKey.of("a"), WriteCondition.none());
      ObjectVersion a3 = write(remote, ObjectKey.of("a"), "same", WriteCondition.mustNotExist());

      assertThat(new String[] {a.value(), b.value(), a2.value(), a3.value()}).containsExactly("v1", "v2", "v3", "v4");
    }
  }

  @Test
  void unconditionalWrites_fromStaleCaches_loseAPeersEntry() {
    try (FakeRemote remote = FakeRemote.create()) {
      remote.plant(LOCKFILE, bytes("{x}"));
      String cacheA = read(remote);
      String cacheB = read(remote);

      write(remote, LOCKFILE, cacheA.replace("}", ",a}"), WriteCondition.none());
      write(remote, LOCKFILE, cacheB.replace("}", ",b}"), WriteCondition.none());

      assertThat(remote.peek(LOCKFILE)).hasValue(bytes("{x,b}"));
      assertThat(remote.log().writtenKeys()).containsExactly(LOCKFILE, LOCKFILE);
    }
  }

  @Test
  void conditionalWrites_fromStaleCaches_keepEveryEntry() {
    try (FakeRemote remote = FakeRemote.create()) {
      remote.plant(LOCKFILE, bytes("{x}"));
      ObjectVersion seenByA = remote.peekObject(LOCKFILE).orElseThrow().version();
      ObjectVersion seenByB = seenByA;

      write(remote, LOCKFILE, "{x,a}", WriteCondition.mustMatch(seenByA));
      WriteResult stale = remote.write(LOCKFILE, body("{x,b}"), WriteCondition.mustMatch(seenByB), ObjectMetadata.EMPTY);
      assertThat(stale).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
      ReadResult.Found fresh = (ReadResult.Found) remote.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES);
      String rebased = new String(fresh.bytes(), StandardCharsets.UTF_8).replace("}", ",b}");
      write(remote, LOCKFILE, rebased, WriteCondition.mustMatch(fresh.object().version()));

      assertThat(remote.peek(LOCKFILE)).hasValue(bytes("{x,a,b}"));
    }
  }

  @Test
  void ignorePreconditions_letsEveryWriteAndDeleteLand() {
    try (FakeRemote remote = FakeRemote.create()) {
      ObjectVersion first = write(remote, LOCKFILE, "first", WriteCondition.mustNotExist());

      remote.ignorePreconditions();
      ObjectVersion second = write(remote, LOCKFILE, "second", WriteCondition.mustNotExist());
      write(remote, LOCKFILE, "third", WriteCondition.mustMatch(first));
      ObjectVersion fourth = write(remote, ObjectKey.of("missing"), "created", WriteCondition.mustMatch(second));

      assertThat(remote.peek(LOCKFILE)).hasValue(bytes("third"));
      assertThat(remote.read(ObjectKey.of("missing"), ReadCondition.ifNoneMatch(fourth), Lockfile.MAX_BYTES))
          .isEqualTo(new ReadResult.NotModified(fourth));
      assertThat(remote.delete(LOCKFILE, WriteCondition.mustMatch(first))).isEqualTo(DeleteResult.DELETED);
      assertThat(remote.peek(LOCKFILE)).isEmpty();
      assertThatThrownBy(() -> remote.delete(LOCKFILE, WriteCondition.mustNotExist()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot delete object " + LOCKFILE + " at " + remote.describe()
              + ": mustNotExist is not a valid delete condition");
    }
  }

  @Test
  void plantPeekAndErase_bypassFaultsAndTheLog() {
    try (FakeRemote remote = FakeRemote.create()) {
      remote.faults().offline();

      remote.plant(LOCKFILE, bytes("peer"), ObjectMetadata.of("tierlock-holder", "peer-host"));
      remote.plant(ObjectKey.of("b"), bytes("other"));
      Map<String, String> metadata = remote.peekObject(LOCKFILE).orElseThrow().metadata().values();
      remote.erase(ObjectKey.of("b"));
      remote.erase(ObjectKey.of("never-there"));

      assertThat(remote.peek(LOCKFILE)).hasValue(bytes("peer"));
      assertThat(metadata).containsExactly(Map.entry("tierlock-holder", "peer-host"));
      assertThat(remote.peekObject(LOCKFILE).orElseThrow().version()).isEqualTo(ObjectVersion.of("v1"));
      assertThat(remote.keys()).containsExactly(LOCKFILE);
      assertThat(remote.log().entries()).isEmpty();
    }
  }

  @Test
  void keys_isASortedImmutableSnapshot() {
    try (FakeRemote remote = FakeRemote.create()) {
      remote.plant(ObjectKey.of("b/2"), bytes("2"));
      remote.plant(ObjectKey.of("a"), bytes("1"));

      var keys = remote.keys();
      remote.plant(ObjectKey.of("c"), bytes("3"));

      assertThat(keys).containsExactly(ObjectKey.of("a"), ObjectKey.of("b/2"));
      assertThat(keys).isUnmodifiable();
    }
  }

  @Test
  void instances_shareNothing() {
    try (FakeRemote one = FakeRemote.create(); FakeRemote two = FakeRemote.create()) {
      one.faults().offline();
      write(two, LOCKFILE, "two", WriteCondition.mustNotExist());

      assertThat(one.directory()).isNotEqualTo(two.directory());
      assertThat(one.peek(LOCKFILE)).isEmpty();
      assertThat(two.peekObject(LOCKFILE).orElseThrow().version()).isEqualTo(ObjectVersion.of("v1"));
      assertThat(one.log().entries()).isEmpty();
      assertThat(two.log().entries()).hasSize(1);
    }
  }

  @Test
  void write_bodyThatLiesAboutItsSize_isRejectedAndChangesNothing() {
    try (FakeRemote remote = FakeRemote.create()) {
      ObjectBody lying = new ObjectBody() {
        @Override
        public long size() {
          return 5;
        }

        @Override
        public InputStream open() {
          return new ByteArrayInputStream(new byte[] {1, 2, 3});
        }
      };

      assertThatThrownBy(() -> remote.write(LOCKFILE, lying, WriteCondition.none(), ObjectMetadata.EMPTY))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot write object " + LOCKFILE + " at " + remote.describe()
              + ": the body declares 5 bytes but yielded 3");

      assertThat(remote.keys()).isEmpty();
      assertThat(remote.log().entries()).extracting(LoggedOperation::outcome)
          .containsExactly("ERROR:IllegalArgumentException");
    }
  }

  @Test
  void openStreams_areTrackedUntilClosed() throws Exception {
    try (FakeRemote remote = FakeRemote.create()) {
      remote.plant(LOCKFILE, bytes("x"));
      ObjectStream left = remote.openStream(LOCKFILE).orElseThrow();

      assertThat(remote.openStreams()).containsExactly(LOCKFILE);
      assertThatThrownBy(remote::checkNoOpenStreams)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot finish with fake remote " + remote.describe() + ": 1 download(s) left open: [" + LOCKFILE + "]");

      left.close();
      remote.checkNoOpenStreams();
      assertThat(remote.openStreams()).isEmpty();
    }
  }

  @Test
  void openStream_ofAReplacedVersion_keepsYieldingItsOwnBytes() throws Exception {
    try (FakeRemote remote = FakeRemote.create()) {
      remote.plant(LOCKFILE, bytes("old bytes"));
      try (ObjectStream old = remote.openStream(LOCKFILE).orElseThrow()) {
        remote.plant(LOCKFILE, bytes("new bytes"));

        assertThat(old.stream().readAllBytes()).isEqualTo(bytes("old bytes"));
        assertThat(old.object().version()).isEqualTo(ObjectVersion.of("v1"));
      }
      assertThat(remote.peek(LOCKFILE)).hasValue(bytes("new bytes"));
    }
  }

  @Test
  void close_closesDownloadsLeftOpen() throws Exception {
    FakeRemote remote = FakeRemote.create();
    remote.plant(LOCKFILE, bytes("x"));
    remote.openStream(LOCKFILE).orElseThrow();

    remote.close();

    assertThat(remote.openStreams()).isEmpty();
    assertThat(remote.directory()).doesNotExist();
  }

  @Test
  void list_sortsByKeyAcrossNestingAndUnicode() {
    try (FakeRemote remote = FakeRemote.create()) {
      for (String k : new String[] {"b", "a/\u00e9", "a/z", "a-b", "a/b/c"}) {
        remote.plant(ObjectKey.of(k), bytes(k));
      }

      assertThat(remote.list("")).extracting(StoredObject::key)
          .containsExactlyElementsOf(new TreeSet<>(remote.keys()));
      assertThat(remote.list("a/")).extracting(o -> o.key().value()).containsExactly("a/b/c", "a/z", "a/\u00e9");
    }
  }

  @Test
  void inDirectory_leftoverFiles_areCleanedOnOpen(@TempDir Path directory) throws Exception {
    try (FakeRemote remote = FakeRemote.inDirectory(directory)) {
      remote.plant(LOCKFILE, bytes("kept"));
    }
    Files.write(directory.resolve("tmp").resolve("body-1.part"), bytes("staged"));
    Files.write(directory.resolve("objects").resolve("v9.bin"), bytes("orphan without description"));

    try (FakeRemote remote = FakeRemote.inDirectory(directory)) {
      assertThat(remote.keys()).containsExactly(LOCKFILE);
      assertThat(directory.resolve("tmp")).isEmptyDirectory();
      assertThat(directory.resolve("objects").resolve("v9.bin")).doesNotExist();
      assertThat(remote.peek(LOCKFILE)).hasValue(bytes("kept"));
    }
  }

  private static String read(FakeRemote remote) {
    return new String(((ReadResult.Found) remote.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES)).bytes(), StandardCharsets.UTF_8);
  }

  private static ObjectVersion write(FakeRemote remote, ObjectKey key, String content, WriteCondition condition) {
    return written(remote.write(key, body(content), condition, ObjectMetadata.EMPTY));
  }
}
