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
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How keys map to files: listing, the internal directory, temp files and keys a filesystem refuses. */
class FileSystemDatastoreLayoutTest {

  private static final ObjectKey LOCKFILE = ObjectKey.of("config/upstream_extensions.json");
  private static final ObjectMetadata COMMIT_A = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "commit-a");

  @TempDir
  Path dir;

  private FileSystemDatastore store;

  @BeforeEach
  void openStore() {
    store = FileSystemDatastore.open(dir.resolve("tier"));
  }

  @Test
  void list_returnsObjectsUnderThePrefixSortedByKey() {
    for (String key : List.of("config/b", "config/a/z", "config/a/a", "configx", "other/c", "config-/d")) {
      store.write(ObjectKey.of(key), body(key), WriteCondition.none(), COMMIT_A);
    }

    assertThat(keys(store.list(""))).containsExactly(
        "config-/d", "config/a/a", "config/a/z", "config/b", "configx", "other/c");
    assertThat(keys(store.list("config/"))).containsExactly("config/a/a", "config/a/z", "config/b");
    assertThat(keys(store.list("config"))).containsExactly("config-/d", "config/a/a", "config/a/z", "config/b", "configx");
    assertThat(keys(store.list("config/a/"))).containsExactly("config/a/a", "config/a/z");
    assertThat(keys(store.list("config/a/a"))).containsExactly("config/a/a");
    assertThat(keys(store.list("missing/"))).isEmpty();
    StoredObject listed = store.list("config/b").get(0);
    assertThat(listed).isEqualTo(store.stat(ObjectKey.of("config/b")).orElseThrow());
  }

  @Test
  void list_neverShowsTheInternalDirectory() throws IOException {
    store.write(LOCKFILE, body("x"), WriteCondition.none(), COMMIT_A);
    store.write(ObjectKey.of(".datastore.lock"), body("lock"), WriteCondition.mustNotExist(), COMMIT_A);
    Files.writeString(new RootLayout(store.root()).lockDirectory().resolve("lockfile.lock"), "");

    try (Stream<Path> internal = Files.walk(store.root().resolve(".tierlock"))) {
      assertThat(internal.filter(Files::isRegularFile).count()).isGreaterThanOrEqualTo(3);
    }
    assertThat(keys(store.list(""))).containsExactly(".datastore.lock", LOCKFILE.value());
    assertThat(store.list(".tierlock/")).isEmpty();
    assertThat(store.list(".tier")).isEmpty();
  }

  @Test
  void list_ignoresTempFilesThatEarlierVersionsLeftBesideObjects() throws IOException {
    store.write(LOCKFILE, body("x"), WriteCondition.none(), COMMIT_A);
    Path temp = AtomicFileWriter.newTemp(store.pathOf(LOCKFILE));
    Files.writeString(temp, "half");

    assertThat(keys(store.list(""))).containsExactly(LOCKFILE.value());
  }

  @Test
  void keys_namingTheInternalDirectory_areRefusedEverywhere() {
    for (String key : List.of(".tierlock/locks/x.lock", ".TierLock", "ns/.tierlock/meta")) {
      ObjectKey k = ObjectKey.of(key);
      String reason = ": the segment .tierlock is reserved for the datastore's internal files";
      assertThatThrownBy(() -> store.write(k, body("x"), WriteCondition.none(), COMMIT_A))
          .isExactlyInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot write object " + key + " at " + store.describe() + reason);
      assertThatThrownBy(() -> store.read(k, ReadCondition.always(), Lockfile.MAX_BYTES))
          .isExactlyInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot read object " + key + " at " + store.describe() + reason);
      assertThatThrownBy(() -> store.delete(k, WriteCondition.none()))
          .isExactlyInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot delete object " + key + " at " + store.describe() + reason);
      assertThatThrownBy(() -> store.pathOf(k))
          .isExactlyInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot locate object " + key + " at " + store.describe() + reason);
    }
    assertThat(store.root().resolve(".tierlock/locks/x.lock")).doesNotExist();
    assertThat(store.root().resolve("ns")).doesNotExist();
  }

  @Test
  void keys_withDotDotSegments_neverReachTheDatastore() {
    assertThatThrownBy(() -> ObjectKey.of("config/../../escape"))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use object key \"config/../../escape\": a key has no '.' or '..' segment");
    assertThatThrownBy(() -> ObjectKey.of("/etc/passwd"))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no empty segment and no leading or trailing '/'");
    assertThat(dir.resolve("escape")).doesNotExist();
  }

  @Test
  void keys_shapedLikeTempFilesOrTooLong_areRefused() {
    String temp = "config/.x.123e4567-e89b-12d3-a456-426614174000.tmp";
    assertThatThrownBy(() -> store.write(ObjectKey.of(temp), body("x"), WriteCondition.none(), COMMIT_A))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write object " + temp + " at " + store.describe() + ": the segment \""
            + ".x.123e4567-e89b-12d3-a456-426614174000.tmp\" has the form of a temp file (.<name>.<uuid>.tmp)");
    String longName = "config/" + "n".repeat(256);
    assertThatThrownBy(() -> store.write(ObjectKey.of(longName), body("x"), WriteCondition.none(), COMMIT_A))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write object " + longName + " at " + store.describe()
            + ": a segment is at most 255 bytes of UTF-8, got 256");
    assertThat(store.write(ObjectKey.of("config/" + "n".repeat(255)), body("x"), WriteCondition.none(), COMMIT_A))
        .isInstanceOf(WriteResult.Written.class);
    assertThat(keys(store.list(""))).containsExactly("config/" + "n".repeat(255));
  }

  @Test
  void write_belowOrAboveAnExistingObject_isRefusedAndChangesNothing() {
    ObjectKey file = ObjectKey.of("config/a");
    ObjectVersion v = written(store.write(file, body("file"), WriteCondition.none(), COMMIT_A));
    store.write(ObjectKey.of("config/d/e"), body("deep"), WriteCondition.none(), COMMIT_A);

    assertThatThrownBy(() -> store.write(ObjectKey.of("config/a/b"), body("x"), WriteCondition.none(), COMMIT_A))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write object config/a/b at " + store.describe()
            + ": object config/a exists, and on a filesystem a key cannot be both an object and a directory");
    assertThatThrownBy(() -> store.write(ObjectKey.of("config/d"), body("x"), WriteCondition.none(), COMMIT_A))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write object config/d at " + store.describe()
            + ": objects exist below it, and on a filesystem a key cannot be both an object and a directory");
    assertHolds(file, "file", v, COMMIT_A);
    assertThat(keys(store.list(""))).containsExactly("config/a", "config/d/e");
  }

  private void assertHolds(ObjectKey key, String content, ObjectVersion version, ObjectMetadata metadata) {
    ReadResult.Found found = found(store.read(key, ReadCondition.always(), Lockfile.MAX_BYTES));
    assertThat(text(found.bytes())).isEqualTo(content);
    assertThat(found.object()).isEqualTo(new StoredObject(key, version, bytes(content).length, metadata));
  }
}
