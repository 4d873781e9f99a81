package dev.tierlock.benchmarks;

import dev.tierlock.datastore.fs.FileSystemDatastore;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The filesystem datastore, each store a fresh directory under the run's work directory. */
final class FileSystemStores implements StoreKind {

  private final Path parent;
  private int next;

  FileSystemStores(Path parent) {
    this.parent = parent;
  }

  @Override
  public String label() {
    return "filesystem datastore (local disk)";
  }

  @Override
  public String slug() {
    return "fs";
  }

  @Override
  public Datastore fresh() {
    Path root = parent.resolve("fs-store-" + (++next));
    try {
      Files.createDirectories(root);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create datastore directory " + root, e);
    }
    FileSystemDatastore store = FileSystemDatastore.open(root);
    return new ClosingDatastore(store, () -> WorkDirectory.delete(root));
  }

  @Override
  public void close() {
    // each store's directory is deleted when the store closes
  }
}
