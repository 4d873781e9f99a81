package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.ConvergeContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The convergence contract over a {@link FileSystemDatastore} in a fresh directory per test. */
class FileSystemConvergeContractTest extends ConvergeContract {

  @TempDir
  Path dir;

  @Override
  protected Datastore createDatastore() {
    return FileSystemDatastore.open(dir.resolve("tier"));
  }
}
