package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.found;
import static dev.tierlock.datastore.fs.Fixtures.keys;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static dev.tierlock.datastore.fs.Fixtures.versions;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.Environment;
import dev.tierlock.Lockfile;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.ReadOnlyFileSystemException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reading needs no write access: a datastore opened on a root that truly refuses every write
 * reads, stats, streams and lists, and {@link Tierlock#snapshot()} returns the lockfile.
 *
 * <p>The root is a zip file system opened read-only through {@link ReadOnlyView}: the JDK's zip
 * provider refuses every change itself ({@link ReadOnlyFileSystemException}), whoever runs the
 * test, where permission bits would not stop root. The zip holds a copy of a datastore root that
 * Tierlock wrote on the default file system ({@code /tier}, internal directory included), and the
 * same objects without any internal directory ({@code /bare}).
 */
class FileSystemReadOnlyRootTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final ObjectKey OTHER = ObjectKey.of("config/other.txt");
  private static final ObjectMetadata META = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "other-1");

  @TempDir
  Path dir;

  private final TestClock clock = TestClock.create();
  private FileSystemDatastore source;
  private Path zip;
  private byte[] zipBytes;
  private FileSystem readOnly;

  @BeforeEach
  void copyAWrittenRootIntoAReadOnlyZip() throws IOException {
    // the read-only view is a copy that keeps no extended attributes: the source keeps its metadata in sidecars
    source = Fixtures.sidecarForm(dir.resolve("source"));
    try (TestCheckout writer = TestCheckout.builder(source, dir.resolve("writer"), clock).build()) {
      writer.put("@acme/web", "1.0.0");
      writer.put("@acme/db", "2.0.0");
    }
    written(source.write(OTHER, body("other bytes"), WriteCondition.mustNotExist(), META));
    zip = dir.resolve("tier.zip");
    try (FileSystem writable = FileSystems.newFileSystem(zip, Map.of("create", "true"))) {
      copyTree(source.root(), writable.getPath("/tier"), true);
      copyTree(source.root(), writable.getPath("/bare"), false);
    }
    zipBytes = Files.readAllBytes(zip);
    readOnly = ReadOnlyView.openZip(zip);
  }

  @AfterEach
  void closeZip() throws IOException {
    readOnly.close();
    assertThat(Files.readAllBytes(zip)).as("the zip file was never written").isEqualTo(zipBytes);
  }

  @Test
  void theTestRoot_refusesEveryWrite() {
    Path tier = readOnly.getPath("/tier");

    assertThat(readOnly.isReadOnly()).isTrue();
    assertThatThrownBy(() -> Files.createFile(tier.resolve("probe")))
        .isExactlyInstanceOf(ReadOnlyFileSystemException.class).hasMessage(null);
    assertThatThrownBy(() -> Files.createDirectories(readOnly.getPath("/bare/.tierlock/tmp")))
        .isExactlyInstanceOf(ReadOnlyFileSystemException.class).hasMessage(null);
    assertThatThrownBy(() -> Files.delete(tier.resolve(LOCKFILE.value())))
        .isExactlyInstanceOf(ReadOnlyFileSystemException.class).hasMessage(null);
  }

  @Test
  void openAndEveryRead_onAReadOnlyRoot_createNothing_andSeeWhatWasWritten() throws IOException {
    FileSystemDatastore tier = FileSystemDatastore.open(readOnly.getPath("/tier"));
    FileSystemDatastore bare = FileSystemDatastore.open(readOnly.getPath("/bare"));
    List<StoredObject> written = source.list("");

    assertThat(tier.list("")).as("objects, versions and metadata as written").isEqualTo(written);
    assertThat(keys(tier.list(""))).containsExactly(".tierlock-selfcheck/verdict", OTHER.value(), LOCKFILE.value());
    StoredObject other = tier.stat(OTHER).orElseThrow();
    assertThat(other).isEqualTo(source.stat(OTHER).orElseThrow());
    assertThat(other.metadata()).isEqualTo(META);
    ReadResult.Found read = found(tier.read(OTHER, ReadCondition.always(), Lockfile.MAX_BYTES));
    assertThat(text(read.bytes())).isEqualTo("other bytes");
    assertThat(tier.read(OTHER, ReadCondition.ifNoneMatch(other.version()), Lockfile.MAX_BYTES))
        .isEqualTo(new ReadResult.NotModified(other.version()));
    try (ObjectStream stream = tier.openStream(OTHER).orElseThrow(); InputStream in = stream.stream()) {
      assertThat(stream.object()).isEqualTo(other);
      assertThat(text(in.readAllBytes())).isEqualTo("other bytes");
    }
    assertThat(keys(bare.list(""))).isEqualTo(keys(written));
    assertThat(bare.stat(OTHER).orElseThrow().metadata()).as("no sidecar, no metadata").isEqualTo(ObjectMetadata.EMPTY);
    assertThat(text(found(bare.read(OTHER, ReadCondition.always(), Lockfile.MAX_BYTES)).bytes()))
        .isEqualTo("other bytes");
    assertThat(readOnly.getPath("/bare/.tierlock")).as("no internal directory was created").doesNotExist();
  }

  @Test
  void writeAndDelete_onAReadOnlyRoot_areAccessDenied_andChangeNothing() {
    for (String rootPath : List.of("/tier", "/bare")) {
      FileSystemDatastore store = FileSystemDatastore.open(readOnly.getPath(rootPath));
      StoredObject before = store.stat(OTHER).orElseThrow();

      assertThatThrownBy(() -> store.write(OTHER, body("new"), WriteCondition.mustMatch(before.version()), META))
          .as(rootPath)
          .isExactlyInstanceOf(DatastoreAccessDeniedException.class)
          .hasMessage("Cannot write object " + OTHER + " at " + store.describe()
              + ": the file system is read-only (ReadOnlyFileSystemException); nothing changed")
          .extracting(e -> ((TierlockException) e).code()).isEqualTo("access_denied");
      assertThatThrownBy(() -> store.delete(OTHER, WriteCondition.none()))
          .as(rootPath)
          .isExactlyInstanceOf(DatastoreAccessDeniedException.class)
          .hasMessage("Cannot delete object " + OTHER + " at " + store.describe()
              + ": the file system is read-only (ReadOnlyFileSystemException); nothing changed");
      assertThat(store.stat(OTHER)).contains(before);
    }
  }

  @Test
  void snapshotAndRefresh_onAReadOnlyRoot_returnTheLockfile_andAPutIsRefused() {
    FileSystemDatastore store = FileSystemDatastore.open(readOnly.getPath("/tier"));
    try (Tierlock reader = Tierlock.builder().datastore(store).checkout(dir.resolve("reader"))
        .environment(Environment.system().withClock(clock).withSleeper(clock.sleeper())).build()) {

      assertThat(versions(reader.snapshot())).containsExactly(entry("@acme/web", "1.0.0"), entry("@acme/db", "2.0.0"));
      assertThat(reader.transaction().refresh().status()).isEqualTo(TransactionStatus.NO_CHANGE);
      assertThat(versions(reader.snapshot())).as("again, from the cached version").hasSize(2);
      assertThatThrownBy(() -> reader.transaction().run(tx -> { }))
          .isInstanceOf(DatastoreAccessDeniedException.class)
          .hasMessageStartingWith("Cannot write object ")
          .hasMessageContaining(": the file system is read-only (ReadOnlyFileSystemException)");
    }
  }

  /** Copies the directory tree {@code from} into {@code to} (another file system), with or without its internal directory. */
  private static void copyTree(Path from, Path to, boolean withInternal) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path path : paths.toList()) {
        Path relative = from.relativize(path);
        if (!withInternal && relative.startsWith(RootLayout.INTERNAL)) {
          continue;
        }
        Path target = to;
        for (Path segment : relative) {
          target = target.resolve(segment.toString());
        }
        if (Files.isDirectory(path)) {
          Files.createDirectories(target);
        } else {
          Files.copy(path, target);
        }
      }
    }
  }
}
