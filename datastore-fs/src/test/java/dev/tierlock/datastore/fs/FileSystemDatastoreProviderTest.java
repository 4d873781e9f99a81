package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreMissingException;
import dev.tierlock.spi.DatastoreProvider;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemDatastoreProviderTest {

  @TempDir
  Path dir;

  @Test
  void serviceLoader_findsTheProviderForTheFileScheme() {
    List<DatastoreProvider> file = ServiceLoader.load(DatastoreProvider.class).stream()
        .map(ServiceLoader.Provider::get)
        .filter(p -> p.scheme().equals("file"))
        .toList();

    assertThat(file).singleElement().isInstanceOf(FileSystemDatastoreProvider.class);
  }

  @Test
  void open_fileUri_opensAFileSystemDatastoreAtThatDirectory() throws IOException {
    Path root = Files.createDirectory(dir.resolve("shared tier"));
    DatastoreProvider provider = ServiceLoader.load(DatastoreProvider.class).stream()
        .map(ServiceLoader.Provider::get).filter(p -> p.scheme().equals("file")).findFirst().orElseThrow();

    try (Datastore store = provider.open(root.toUri())) {
      store.write(ObjectKey.of("config/x"), body("via uri"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);

      assertThat(store).isInstanceOf(FileSystemDatastore.class);
      assertThat(((FileSystemDatastore) store).root()).isEqualTo(root.toRealPath());
      assertThat(store.describe()).isEqualTo(root.toRealPath().toUri().toString());
    }
    assertThat(Files.readString(root.resolve("config/x"))).isEqualTo("via uri");
  }

  @Test
  void open_aMissingDirectory_isRefusedAsMissing_andCreatesNothing() {
    Path root = dir.resolve("typo").resolve("tier");

    assertThatThrownBy(() -> new FileSystemDatastoreProvider().open(root.toUri()))
        .isExactlyInstanceOf(DatastoreMissingException.class)
        .hasMessage("Cannot open filesystem datastore " + root.toUri() + ": no such directory; check the path, or"
            + " create a datastore there on purpose (Tierlock.Builder.createDatastore(), tierlock init)")
        .extracting(e -> ((DatastoreMissingException) e).code()).isEqualTo("datastore_missing");
    assertThat(dir.resolve("typo")).doesNotExist();
  }

  @Test
  void tierlockBuilder_aMistypedDatastorePath_isRefusedAsMissing_andCreatesNothing() throws IOException {
    Path typo = dir.resolve("target").resolve("nope");
    Path checkout = Files.createDirectory(dir.resolve("checkout"));

    assertThatThrownBy(() -> {
      try (Tierlock tierlock = Tierlock.builder().datastore(typo.toUri()).checkout(checkout).build()) {
        tierlock.snapshot();
      }
    }).isExactlyInstanceOf(DatastoreMissingException.class)
        .hasMessageStartingWith("Cannot open filesystem datastore " + typo.toUri() + ": no such directory")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo(DatastoreMissingException.CODE);
    assertThat(dir.resolve("target")).doesNotExist();
  }

  @Test
  void tierlockBuilder_createDatastore_createsAMissingOne_andTheNextBuildOpensIt() throws IOException {
    Path root = dir.resolve("target").resolve("tier");
    Path checkout = Files.createDirectory(dir.resolve("checkout"));

    try (Tierlock tierlock = Tierlock.builder().datastore(root.toUri()).createDatastore().checkout(checkout).build()) {
      assertThat(tierlock.snapshot().names()).isEmpty();
    }
    assertThat(root).isDirectory();
    try (Tierlock again = Tierlock.builder().datastore(root.toUri()).checkout(checkout).build()) {
      assertThat(again.snapshot().names()).isEmpty();
    }
  }

  @Test
  void create_aMissingDirectory_createsItAndItsParents_thenOpensIt() throws IOException {
    Path root = dir.resolve("new").resolve("tier");

    try (Datastore store = new FileSystemDatastoreProvider().create(root.toUri())) {
      assertThat(((FileSystemDatastore) store).root()).isEqualTo(root.toRealPath());
    }
    try (Datastore again = new FileSystemDatastoreProvider().create(root.toUri())) {
      assertThat(again).as("an existing one is opened as it is").isInstanceOf(FileSystemDatastore.class);
    }
  }

  @Test
  void open_localhostAuthority_isTheLocalFileSystem() throws IOException {
    Path root = Files.createDirectory(dir.resolve("tier"));
    URI uri = URI.create("file://localhost" + root.toUri().getRawPath());

    try (Datastore store = new FileSystemDatastoreProvider().open(uri)) {
      assertThat(((FileSystemDatastore) store).root()).isEqualTo(root.toRealPath());
    }
  }

  @Test
  void open_badUris_areRefusedWithTheReasonAndCreateNothing() {
    Path root = dir.resolve("never");
    String path = root.toUri().getRawPath();
    FileSystemDatastoreProvider provider = new FileSystemDatastoreProvider();

    assertRefused(provider, URI.create("s3://bucket/prefix"), "the scheme must be file:");
    assertRefused(provider, URI.create("file:relative/tier"), "the path must be absolute, as in file:///srv/tier");
    assertRefused(provider, URI.create("file://fileserver" + path),
        "a host (fileserver) is not supported; mount the share and use file:///<mount path>");
    assertRefused(provider, URI.create("file://" + path + "?lockTimeout=PT1S"), "a query or fragment is not supported");
    assertRefused(provider, URI.create("file:///"), "the root of the file system cannot be a datastore");
    assertThat(root).doesNotExist();
  }

  @Test
  void open_uriOfAPlainFile_isRefused() throws IOException {
    Path file = Files.writeString(dir.resolve("file.txt"), "x");

    assertThatThrownBy(() -> new FileSystemDatastoreProvider().open(file.toUri()))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot open filesystem datastore at " + file.toUri() + ": it exists and is not a directory");
  }

  private static void assertRefused(FileSystemDatastoreProvider provider, URI uri, String reason) {
    assertThatThrownBy(() -> provider.open(uri))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot open filesystem datastore " + uri + ": " + reason);
  }
}
