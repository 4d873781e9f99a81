package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.found;
import static dev.tierlock.datastore.fs.Fixtures.keys;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.DeleteResult;
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
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The datastore on a file system provider other than the default one: the JDK's zip file system
 * (Jimfs is not available here). It proves the datastore uses only portable NIO operations.
 */
class ZipFileSystemDatastoreTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");
  private static final ObjectMetadata META = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "zip-1");

  @TempDir
  Path dir;

  private FileSystem zip;
  private FileSystemDatastore store;

  @BeforeEach
  void openZip() throws IOException {
    zip = FileSystems.newFileSystem(dir.resolve("tier.zip"), Map.of("create", "true"));
    store = FileSystemDatastore.open(zip.getPath("/tier"));
  }

  @AfterEach
  void closeZip() throws IOException {
    zip.close();
  }

  @Test
  void datastore_onAZipFileSystem_supportsEveryOperation() throws IOException {
    ObjectVersion v1 = written(store.write(KEY, body("one"), WriteCondition.mustNotExist(), META));
    assertThat(store.write(KEY, body("again"), WriteCondition.mustNotExist(), META))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    ObjectVersion v2 = written(store.write(KEY, body("two"), WriteCondition.mustMatch(v1), ObjectMetadata.EMPTY));
    store.write(ObjectKey.of("config/other"), body("x"), WriteCondition.none(), META);

    ReadResult.Found found = found(store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES));
    assertThat(text(found.bytes())).isEqualTo("two");
    assertThat(found.object().version()).isEqualTo(v2);
    assertThat(found.object().metadata()).isEqualTo(ObjectMetadata.EMPTY);
    assertThat(store.read(KEY, ReadCondition.ifNoneMatch(v2), Lockfile.MAX_BYTES)).isEqualTo(new ReadResult.NotModified(v2));
    try (ObjectStream stream = store.openStream(KEY).orElseThrow(); InputStream in = stream.stream()) {
      assertThat(text(in.readAllBytes())).isEqualTo("two");
    }
    assertThat(keys(store.list(""))).containsExactly("config/other", KEY.value());
    assertThat(store.stat(ObjectKey.of("config/other")).orElseThrow().metadata()).isEqualTo(META);
    assertThat(store.delete(KEY, WriteCondition.mustMatch(v1))).isEqualTo(DeleteResult.PRECONDITION_FAILED);
    assertThat(store.delete(KEY, WriteCondition.mustMatch(v2))).isEqualTo(DeleteResult.DELETED);
    assertThat(keys(store.list("config/"))).containsExactly("config/other");
    assertThat(store.pathOf(KEY).getFileSystem()).isSameAs(zip);
    assertThat(store.describe()).startsWith("jar:file:");
  }

  @Test
  void datastore_onAZipFileSystem_versionsMatchTheDefaultFileSystem() {
    FileSystemDatastore local = FileSystemDatastore.open(dir.resolve("local"));

    ObjectVersion inZip = written(store.write(KEY, body("same"), WriteCondition.none(), META));
    ObjectVersion onDisk = written(local.write(KEY, body("same"), WriteCondition.none(), META));

    assertThat(inZip).isEqualTo(onDisk);
  }
}
