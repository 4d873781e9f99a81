package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.bytes;
import static dev.tierlock.datastore.fs.Fixtures.found;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.tierlock.Lockfile;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metadata attached to the object's own file (an extended attribute): one flush and one rename
 * per write, counted through the {@link FileIo} seam; roots written in the sidecar form (by earlier
 * versions, or where the file system keeps no extended attributes) still read and take writes.
 */
class AttachedMetadataTest {

  private static final ObjectKey KEY = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final ObjectMetadata FIRST = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "first");
  private static final ObjectMetadata SECOND = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "second");

  @TempDir Path temp;
  private Path root;

  @BeforeEach
  void attributesAreKept() throws IOException {
    root = Files.createDirectories(temp.resolve("tier"));
    Path probe = Files.createFile(temp.resolve("probe"));
    assumeThat(ExtendedAttributes.write(probe, "probe", new byte[] {1}))
        .as("the test directory's file system keeps user extended attributes").isTrue();
  }

  /** Counts the steps that flush to disk and the renames, and passes each on. */
  private static final class Counting implements FileIo {
    final List<String> steps = new ArrayList<>();
    final FileIo next;

    Counting(FileIo next) {
      this.next = next;
    }

    @Override
    public void fill(InputStream in, FileChannel temp) throws IOException {
      steps.add("flush file");
      next.fill(in, temp);
    }

    @Override
    public void copy(InputStream in, FileChannel temp) throws IOException {
      next.copy(in, temp);
    }

    @Override
    public boolean attach(Path file, String name, byte[] value) throws IOException {
      return next.attach(file, name, value);
    }

    @Override
    public void force(Path file) throws IOException {
      steps.add("flush file");
      next.force(file);
    }

    @Override
    public void forceDirectory(Path dir) throws IOException {
      steps.add("flush directory");
      next.forceDirectory(dir);
    }

    @Override
    public void move(Path temp, Path target) throws IOException {
      steps.add("rename");
      next.move(temp, target);
    }

    @Override
    public void moveAway(Path source, Path target) throws IOException {
      steps.add("rename");
      next.moveAway(source, target);
    }
  }

  @Test
  void aWriteWithMetadata_flushesTheFileAndItsDirectoryOnce_andRenamesOnce() {
    Counting io = new Counting(FileIo.STANDARD);
    FileSystemDatastore store = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults(), io);
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    io.steps.clear();

    ObjectVersion second = written(store.write(KEY, body("second"), WriteCondition.mustMatch(first), SECOND));

    assertThat(io.steps).containsExactly("flush file", "rename", "flush directory");
    assertHolds(store, "second", second, SECOND);
    assertThat(root.resolve(".tierlock/meta")).doesNotExist();
    io.steps.clear();
    assertThat(store.delete(KEY, WriteCondition.mustMatch(second))).isEqualTo(DeleteResult.DELETED);
    assertThat(io.steps).containsExactly("rename", "flush directory");
  }

  @Test
  void withoutExtendedAttributes_theSidecarCarriesTheMetadata_atTwoFlushesAndARenameMore() {
    Counting io = new Counting(Fixtures.WITHOUT_ATTRIBUTES);
    FileSystemDatastore store = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults(), io);
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    io.steps.clear();

    ObjectVersion second = written(store.write(KEY, body("second"), WriteCondition.mustMatch(first), SECOND));

    assertThat(io.steps).containsExactly("flush file", "flush file", "rename", "flush directory", "rename",
        "flush directory");
    assertHolds(store, "second", second, SECOND);
    assertHolds(FileSystemDatastore.open(root), "second", second, SECOND);
  }

  @Test
  void aRootWrittenInTheSidecarForm_readsWithItsMetadata_andTheNextWriteCarriesItInTheFile() throws IOException {
    FileSystemDatastore earlier = Fixtures.sidecarForm(root);
    ObjectVersion first = written(earlier.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    Path sidecar = new RootLayout(earlier.root()).sidecar(KEY);
    assertThat(sidecar).exists();

    FileSystemDatastore store = FileSystemDatastore.open(root);
    assertHolds(store, "first", first, FIRST);
    ObjectVersion second = written(store.write(KEY, body("second"), WriteCondition.mustMatch(first), SECOND));

    assertHolds(store, "second", second, SECOND);
    assertThat(sidecar).as("its entries name files that are gone").doesNotExist();
    assertThat(text(ExtendedAttributes.read(store.pathOf(KEY), ExtendedAttributes.METADATA)))
        .startsWith(Sidecar.HEADER + "\n").contains("object " + Digests.sha256Hex(bytes("second")) + " file=");
    // and back: a write in the sidecar form over a file that carries its own metadata
    ObjectVersion third = written(earlier.write(KEY, body("third"), WriteCondition.mustMatch(second), FIRST));
    assertHolds(store, "third", third, FIRST);
  }

  @Test
  void anotherToolRewritingTheFileInPlace_keepsItsAttributeButNotItsMetadata() throws IOException {
    FileSystemDatastore store = FileSystemDatastore.open(root);
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    Path file = store.pathOf(KEY);

    Files.write(file, bytes("other")); // same inode, the attribute stays: it names other bytes
    StoredObject foreign = store.stat(KEY).orElseThrow();
    assertThat(foreign.metadata()).isEqualTo(ObjectMetadata.EMPTY);
    Files.write(file, bytes("first")); // the same bytes again: a modification time of its own
    assertThat(store.stat(KEY).orElseThrow().metadata()).isEqualTo(ObjectMetadata.EMPTY);
    assertThat(store.stat(KEY).orElseThrow().version()).isNotEqualTo(first);
  }

  private static void assertHolds(FileSystemDatastore store, String content, ObjectVersion version, ObjectMetadata metadata) {
    StoredObject expected = new StoredObject(KEY, version, bytes(content).length, metadata);
    ReadResult.Found found = found(store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES));
    assertThat(text(found.bytes())).isEqualTo(content);
    assertThat(found.object()).isEqualTo(expected);
    assertThat(store.stat(KEY)).contains(expected);
  }
}
