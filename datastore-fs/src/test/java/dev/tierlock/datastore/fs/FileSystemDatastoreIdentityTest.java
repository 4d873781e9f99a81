package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a filesystem datastore says it is, its metadata capacity and its read bound. */
class FileSystemDatastoreIdentityTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  @TempDir
  Path dir;

  @Test
  void identity_isTheRootsFileKeyAndRealPath() throws IOException {
    Path root = dir.resolve("tier");
    FileSystemDatastore store = FileSystemDatastore.open(root);
    Object fileKey = Files.readAttributes(root.toRealPath(), BasicFileAttributes.class).fileKey();

    DatastoreIdentity identity = store.identity();

    assertThat(identity.scheme()).isEqualTo("file");
    assertThat(identity.endpoint()).isEqualTo(fileKey == null ? "" : fileKey.toString());
    assertThat(identity.container()).isEmpty();
    assertThat(identity.prefix()).isEqualTo(root.toRealPath().toString());
    assertThat(store.identity()).isEqualTo(identity);
  }

  @Test
  void identity_ofTwoInstancesOnOneRoot_isEqualAndFollowsLinksToTheRealPath() throws IOException {
    Path root = dir.resolve("tier");
    FileSystemDatastore first = FileSystemDatastore.open(root);
    Path link;
    try {
      link = Files.createSymbolicLink(dir.resolve("link-to-tier"), root);
    } catch (UnsupportedOperationException | IOException e) {
      link = root; // no symbolic links here: the equality of two plain opens is still checked
    }

    FileSystemDatastore second = FileSystemDatastore.open(link);

    assertThat(second.identity()).isEqualTo(first.identity());
  }

  @Test
  void identity_ofADirectoryReplacedAtTheSamePath_isAnotherStore() throws IOException {
    Path root = dir.resolve("tier");
    FileSystemDatastore before = FileSystemDatastore.open(root);
    written(before.write(KEY, body("old store"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY));
    assertThat(before.identity().endpoint())
        .as("this test needs a file system with file keys (device and inode)").isNotEmpty();
    // the old directory is moved away, not deleted, so that its inode cannot be handed to the new one
    Files.move(root, dir.resolve("tier-old"));

    FileSystemDatastore after = FileSystemDatastore.open(root);

    assertThat(after.identity().prefix()).isEqualTo(before.identity().prefix());
    assertThat(after.identity()).isNotEqualTo(before.identity());
  }

  @Test
  void identity_onTwoZipFilesWithTheSamePathInside_differs() throws IOException {
    try (FileSystem one = FileSystems.newFileSystem(dir.resolve("one.zip"), Map.of("create", "true"));
        FileSystem two = FileSystems.newFileSystem(dir.resolve("two.zip"), Map.of("create", "true"))) {
      DatastoreIdentity first = FileSystemDatastore.open(one.getPath("/tier")).identity();
      DatastoreIdentity second = FileSystemDatastore.open(two.getPath("/tier")).identity();

      assertThat(first.prefix()).isEqualTo(second.prefix()).isEqualTo("/tier");
      assertThat(first.endpoint()).startsWith("jar:file:").contains("one.zip");
      assertThat(second.endpoint()).startsWith("jar:file:").contains("two.zip");
      assertThat(first).isNotEqualTo(second);
    }
  }

  @Test
  void versionsRepeat_isTrue_writingOldBytesWithTheSameMetadataGivesTheOldVersionBack() {
    FileSystemDatastore store = FileSystemDatastore.open(dir.resolve("tier"));
    ObjectMetadata meta = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c1");
    ObjectVersion first = written(store.write(KEY, body("old"), WriteCondition.mustNotExist(), meta));
    ObjectVersion second = written(store.write(KEY, body("new"), WriteCondition.mustMatch(first), meta));

    ObjectVersion again = written(store.write(KEY, body("old"), WriteCondition.mustMatch(second), meta));

    assertThat(store.versionsRepeat()).isTrue();
    assertThat(second).isNotEqualTo(first);
    assertThat(again).isEqualTo(first);
  }

  @Test
  void maxMetadataBytes_isEightKibibytes() {
    assertThat(FileSystemDatastore.open(dir.resolve("tier")).maxMetadataBytes()).isEqualTo(8192);
  }

  @Test
  void read_overTheBound_isRefusedEvenWhenConditionalOnTheCurrentVersion() {
    FileSystemDatastore store = FileSystemDatastore.open(dir.resolve("tier"));
    ObjectVersion version = written(store.write(KEY, body("0123456789"), WriteCondition.mustNotExist(),
        ObjectMetadata.EMPTY));

    assertThatThrownBy(() -> store.read(KEY, ReadCondition.ifNoneMatch(version), 9))
        .isInstanceOf(ObjectTooLargeException.class)
        .hasMessage("Cannot read object " + KEY + " at " + store.describe()
            + ": it has 10 bytes, more than the 9 this read accepts; nothing was changed");
    assertThat(store.read(KEY, ReadCondition.ifNoneMatch(version), 10)).isEqualTo(new ReadResult.NotModified(version));
  }
}
