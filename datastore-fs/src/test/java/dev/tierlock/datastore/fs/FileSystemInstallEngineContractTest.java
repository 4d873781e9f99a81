package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.InstallEngineContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The install engine's contract over a {@link FileSystemDatastore} in a fresh directory per test. */
class FileSystemInstallEngineContractTest extends InstallEngineContract {

  @TempDir
  Path dir;

  @Override
  protected Datastore createDatastore() {
    return FileSystemDatastore.open(dir.resolve("tier"));
  }
}
