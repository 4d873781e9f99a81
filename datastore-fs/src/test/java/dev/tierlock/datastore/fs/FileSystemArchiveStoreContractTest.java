package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.ArchiveStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The archive store's contract over a {@link FileSystemDatastore} in a fresh directory per test. */
class FileSystemArchiveStoreContractTest extends ArchiveStoreContract {

  @TempDir
  Path dir;

  @Override
  protected Datastore createDatastore() {
    return FileSystemDatastore.open(dir.resolve("tier"));
  }
}
