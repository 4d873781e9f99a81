package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.bytes;
import static dev.tierlock.datastore.fs.Fixtures.found;
import static dev.tierlock.datastore.fs.Fixtures.keys;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.internal.AtomicFileWriter;
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
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemDatastoreTest {

  private static final ObjectKey LOCKFILE = ObjectKey.of("config/upstream_extensions.json");
  private static final ObjectMetadata COMMIT_A = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "commit-a");
  private static final ObjectMetadata COMMIT_B = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "commit-b");

  @TempDir
  Path dir;

  private Path root;
  private FileSystemDatastore store;

  @BeforeEach
  void openStore() {
    root = dir.resolve("tier");
    store = FileSystemDatastore.open(root);
  }

  @Test
  void write_thenRead_returnsBytesVersionAndMetadata() {
    ObjectVersion version = written(store.write(LOCKFILE, body("{}\n"), WriteCondition.mustNotExist(), COMMIT_A));

    ReadResult.Found found = found(store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES));

    assertThat(text(found.bytes())).isEqualTo("{}\n");
    assertThat(found.object()).isEqualTo(new StoredObject(LOCKFILE, version, 3, COMMIT_A));
    assertThat(store.stat(LOCKFILE)).contains(found.object());
  }

  @Test
  void write_storesAPlainFileAtTheKeysPath() throws IOException {
    store.write(LOCKFILE, body("{\"a\":1}\n"), WriteCondition.none(), COMMIT_A);

    assertThat(store.pathOf(LOCKFILE)).isEqualTo(store.root().resolve("config").resolve("upstream_extensions.json"));
    assertThat(Files.readString(store.pathOf(LOCKFILE))).isEqualTo("{\"a\":1}\n");
    assertThat(store.describe()).isEqualTo(store.root().toUri().toString()).startsWith("file:///");
  }

  @Test
  void write_mustNotExistOverAnObject_failsAndChangesNothing() {
    ObjectVersion first = written(store.write(LOCKFILE, body("first"), WriteCondition.mustNotExist(), COMMIT_A));

    WriteResult second = store.write(LOCKFILE, body("second"), WriteCondition.mustNotExist(), COMMIT_B);

    assertThat(second).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertHolds(LOCKFILE, "first", first, COMMIT_A);
  }

  @Test
  void write_mustMatchCurrentVersion_replacesAndStaleVersionFails() {
    ObjectVersion v1 = written(store.write(LOCKFILE, body("one"), WriteCondition.mustNotExist(), COMMIT_A));
    ObjectVersion v2 = written(store.write(LOCKFILE, body("two"), WriteCondition.mustMatch(v1), COMMIT_B));

    WriteResult stale = store.write(LOCKFILE, body("three"), WriteCondition.mustMatch(v1), COMMIT_A);

    assertThat(v2).isNotEqualTo(v1);
    assertThat(stale).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertHolds(LOCKFILE, "two", v2, COMMIT_B);
  }

  @Test
  void write_mustMatchOnAMissingKey_failsAndCreatesNothing() {
    WriteResult result = store.write(LOCKFILE, body("x"), WriteCondition.mustMatch(ObjectVersion.of("0")), COMMIT_A);

    assertThat(result).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertThat(Files.exists(store.pathOf(LOCKFILE))).isFalse();
  }

  @Test
  void write_unconditional_lastWriterWins() {
    store.write(LOCKFILE, body("first"), WriteCondition.none(), COMMIT_A);
    ObjectVersion last = written(store.write(LOCKFILE, body("last"), WriteCondition.none(), ObjectMetadata.EMPTY));

    assertHolds(LOCKFILE, "last", last, ObjectMetadata.EMPTY);
  }

  @Test
  void version_changesWhenOnlyTheMetadataChanges() {
    ObjectVersion a = written(store.write(LOCKFILE, body("same"), WriteCondition.mustNotExist(), COMMIT_A));
    ObjectVersion b = written(store.write(LOCKFILE, body("same"), WriteCondition.mustMatch(a), COMMIT_B));

    assertThat(b).isNotEqualTo(a);
    assertHolds(LOCKFILE, "same", b, COMMIT_B);
    assertThat(store.write(LOCKFILE, body("same"), WriteCondition.mustMatch(a), COMMIT_A))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
  }

  @Test
  void version_dependsOnBytesAndMetadataOnly_notOnFileTimes() throws IOException {
    ObjectVersion a = written(store.write(LOCKFILE, body("alpha"), WriteCondition.none(), COMMIT_A));
    ObjectVersion b = written(store.write(LOCKFILE, body("bravo"), WriteCondition.none(), COMMIT_A));
    ObjectVersion again = written(store.write(LOCKFILE, body("alpha"), WriteCondition.none(), COMMIT_A));

    assertThat(b).isNotEqualTo(a);
    assertThat(again).as("another file, written at another time: the same version").isEqualTo(a);
    assertThat(a.value()).matches("[0-9a-f]{64}");
    assertThat(store.stat(LOCKFILE).orElseThrow().version()).isEqualTo(a);

    // a time set by someone else makes it a file the datastore did not write: it loses its metadata,
    // and its version is that of its bytes without metadata, not one derived from the time
    Files.setLastModifiedTime(store.pathOf(LOCKFILE), FileTime.from(Instant.parse("2001-01-01T00:00:00Z")));
    assertThat(store.stat(LOCKFILE).orElseThrow())
        .isEqualTo(new StoredObject(LOCKFILE, Digests.version(Digests.sha256Hex(bytes("alpha")), ObjectMetadata.EMPTY), 5,
            ObjectMetadata.EMPTY));
  }

  @Test
  void read_ifNoneMatch_reportsNotModifiedOnlyForTheCurrentVersion() {
    ObjectVersion v1 = written(store.write(LOCKFILE, body("one"), WriteCondition.none(), COMMIT_A));

    assertThat(store.read(LOCKFILE, ReadCondition.ifNoneMatch(v1), Lockfile.MAX_BYTES)).isEqualTo(new ReadResult.NotModified(v1));
    ObjectVersion v2 = written(store.write(LOCKFILE, body("two"), WriteCondition.none(), COMMIT_A));
    ReadResult.Found found = found(store.read(LOCKFILE, ReadCondition.ifNoneMatch(v1), Lockfile.MAX_BYTES));
    assertThat(found.object().version()).isEqualTo(v2);
    assertThat(text(found.bytes())).isEqualTo("two");
  }

  @Test
  void read_missingKeyOrAPrefixDirectory_reportsAbsent() {
    store.write(ObjectKey.of("config/a/b"), body("x"), WriteCondition.none(), COMMIT_A);

    for (String key : List.of("config/none", "config/a", "config/a/b/c")) {
      ObjectKey k = ObjectKey.of(key);
      assertThat(store.read(k, ReadCondition.always(), Lockfile.MAX_BYTES)).as(key).isEqualTo(ReadResult.Absent.INSTANCE);
      assertThat(store.stat(k)).as(key).isEmpty();
      assertThat(store.openStream(k)).as(key).isEmpty();
    }
  }

  @Test
  void openStream_yieldsTheBytesOfItsVersionEvenWhenTheObjectIsReplaced() throws IOException {
    ObjectVersion v1 = written(store.write(LOCKFILE, body("original bytes"), WriteCondition.none(), COMMIT_A));

    try (ObjectStream stream = store.openStream(LOCKFILE).orElseThrow()) {
      store.write(LOCKFILE, body("replacement"), WriteCondition.none(), COMMIT_B);

      assertThat(stream.object()).isEqualTo(new StoredObject(LOCKFILE, v1, 14, COMMIT_A));
      try (InputStream in = stream.stream()) {
        assertThat(text(in.readAllBytes())).isEqualTo("original bytes");
      }
    }
    assertThat(text(found(store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES)).bytes())).isEqualTo("replacement");
  }

  @Test
  void delete_honoursItsCondition() {
    ObjectVersion v1 = written(store.write(LOCKFILE, body("one"), WriteCondition.none(), COMMIT_A));
    ObjectVersion v2 = written(store.write(LOCKFILE, body("two"), WriteCondition.none(), COMMIT_A));

    assertThat(store.delete(LOCKFILE, WriteCondition.mustMatch(v1))).isEqualTo(DeleteResult.PRECONDITION_FAILED);
    assertHolds(LOCKFILE, "two", v2, COMMIT_A);
    assertThat(store.delete(LOCKFILE, WriteCondition.mustMatch(v2))).isEqualTo(DeleteResult.DELETED);
    assertThat(store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES)).isEqualTo(ReadResult.Absent.INSTANCE);
    assertThat(store.delete(LOCKFILE, WriteCondition.mustMatch(v2))).isEqualTo(DeleteResult.ABSENT);
    assertThat(store.delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.ABSENT);
  }

  @Test
  void delete_mustNotExist_isRefusedAndDeletesNothing() {
    ObjectVersion v1 = written(store.write(LOCKFILE, body("one"), WriteCondition.none(), COMMIT_A));

    assertThatThrownBy(() -> store.delete(LOCKFILE, WriteCondition.mustNotExist()))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot delete object " + LOCKFILE + " at " + store.describe()
            + ": mustNotExist is not a delete condition (use none or mustMatch)");
    assertHolds(LOCKFILE, "one", v1, COMMIT_A);
  }

  @Test
  void delete_removesEmptiedDirectoriesSoAPrefixCanBecomeAnObject() {
    ObjectKey deep = ObjectKey.of("config/a/b/c");
    store.write(deep, body("x"), WriteCondition.none(), COMMIT_A);
    store.write(ObjectKey.of("config/keep"), body("y"), WriteCondition.none(), COMMIT_A);

    assertThat(store.delete(deep, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);

    assertThat(store.root().resolve("config/a")).doesNotExist();
    assertThat(store.root().resolve("config")).isDirectory();
    assertThat(store.write(ObjectKey.of("config/a"), body("now a file"), WriteCondition.mustNotExist(), COMMIT_A))
        .isInstanceOf(WriteResult.Written.class);
  }

  @Test
  void write_bodyShorterThanDeclared_isRefusedAndChangesNothing() throws IOException {
    ObjectVersion v = written(store.write(LOCKFILE, body("old"), WriteCondition.none(), COMMIT_A));
    ObjectBody lying = new ObjectBody() {
      @Override
      public long size() {
        return 10;
      }

      @Override
      public InputStream open() {
        return InputStream.nullInputStream();
      }
    };

    assertThatThrownBy(() -> store.write(LOCKFILE, lying, WriteCondition.mustMatch(v), COMMIT_B))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write object " + LOCKFILE + " at " + store.describe()
            + ": the body declared 10 bytes but yielded 0; nothing changed");
    assertHolds(LOCKFILE, "old", v, COMMIT_A);
    try (Stream<Path> files = Files.list(store.pathOf(LOCKFILE).getParent())) {
      assertThat(files).containsExactly(store.pathOf(LOCKFILE));
    }
  }

  @Test
  void directEdit_ofAnObjectFile_isSeenAsANewVersionWithoutMetadata() throws IOException {
    ObjectVersion v = written(store.write(LOCKFILE, body("by the datastore"), WriteCondition.none(), COMMIT_A));

    AtomicFileWriter.write(store.pathOf(LOCKFILE), bytes("edited in place"));

    StoredObject now = store.stat(LOCKFILE).orElseThrow();
    assertThat(now.version()).isNotEqualTo(v);
    assertThat(now.metadata()).isEqualTo(ObjectMetadata.EMPTY);
    assertThat(store.write(LOCKFILE, body("x"), WriteCondition.mustMatch(v), COMMIT_B))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertThat(store.write(LOCKFILE, body("y"), WriteCondition.mustMatch(now.version()), COMMIT_B))
        .isInstanceOf(WriteResult.Written.class);
  }

  @Test
  void open_twoInstancesOnOneDirectoryThroughALink_shareObjectsAndLocks() throws IOException {
    Path alias = Files.createSymbolicLink(dir.resolve("alias"), root);
    FileSystemDatastore other = FileSystemDatastore.open(alias);
    ObjectVersion v = written(store.write(LOCKFILE, body("shared"), WriteCondition.mustNotExist(), COMMIT_A));

    assertThat(other.root()).isEqualTo(store.root()).isEqualTo(root.toRealPath());
    assertThat(other.write(LOCKFILE, body("again"), WriteCondition.mustNotExist(), COMMIT_B))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertThat(written(other.write(LOCKFILE, body("next"), WriteCondition.mustMatch(v), COMMIT_B))).isNotEqualTo(v);
    assertThat(text(found(store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES)).bytes())).isEqualTo("next");
  }

  @Test
  void open_missingRoot_isCreated_andItsInternalDirectoryOnlyByTheFirstWrite() throws IOException {
    Path fresh = dir.resolve("a/b/c");

    FileSystemDatastore created = FileSystemDatastore.open(fresh);

    assertThat(fresh).isDirectory().isEmptyDirectory();
    assertThat(created.list("")).isEmpty();
    created.write(LOCKFILE, body("{}\n"), WriteCondition.mustNotExist(), COMMIT_A);
    assertThat(created.root().resolve(".tierlock/locks")).isDirectory();
    assertThat(created.root().resolve(".tierlock/meta")).as("the metadata travels with the file").doesNotExist();
    assertThat(created.root().resolve(".tierlock/tmp")).isEmptyDirectory();
  }

  @Test
  void open_existingRoot_andEveryRead_createNothingInIt() throws IOException {
    Path existing = Files.createDirectories(dir.resolve("existing"));

    FileSystemDatastore opened = FileSystemDatastore.open(existing);
    assertThat(opened.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES)).isEqualTo(ReadResult.Absent.INSTANCE);
    assertThat(opened.stat(LOCKFILE)).isEmpty();
    assertThat(opened.openStream(LOCKFILE)).isEmpty();
    assertThat(opened.list("")).isEmpty();
    assertThat(opened.list("config/")).isEmpty();

    assertThat(existing).isEmptyDirectory();
  }

  @Test
  void open_relativeOrNonDirectoryRoot_isRefused() throws IOException {
    Path file = Files.writeString(dir.resolve("plain.txt"), "not a directory");

    assertThatThrownBy(() -> FileSystemDatastore.open(Path.of("relative/tier")))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot open filesystem datastore at relative/tier: the root must be an absolute path");
    assertThatThrownBy(() -> FileSystemDatastore.open(file))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot open filesystem datastore at " + file.toUri() + ": it exists and is not a directory");
    assertThat(Path.of("relative")).doesNotExist();
    assertThat(Files.readString(file)).isEqualTo("not a directory");
  }

  private void assertHolds(ObjectKey key, String content, ObjectVersion version, ObjectMetadata metadata) {
    ReadResult.Found found = found(store.read(key, ReadCondition.always(), Lockfile.MAX_BYTES));
    assertThat(text(found.bytes())).isEqualTo(content);
    assertThat(found.object()).isEqualTo(new StoredObject(key, version, bytes(content).length, metadata));
  }
}
