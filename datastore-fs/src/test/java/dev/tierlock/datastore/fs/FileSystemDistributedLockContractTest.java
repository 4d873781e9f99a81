package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.DistributedLockContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The lease lock's contract over a {@link FileSystemDatastore} in a fresh directory per test. */
class FileSystemDistributedLockContractTest extends DistributedLockContract {

  @TempDir
  Path dir;

  @Override
  protected Datastore createDatastore() {
    return FileSystemDatastore.open(dir.resolve("tier"));
  }
}
