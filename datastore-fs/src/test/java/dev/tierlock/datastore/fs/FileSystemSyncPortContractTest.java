package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.SyncPortContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remote sync port's contract over a {@link FileSystemDatastore} in a fresh directory per test.
 * The contract builds {@link dev.tierlock.ManagedLockfileSyncPort#remote} itself, over the object
 * operations alone, so it applies to any datastore; a filesystem datastore can be used that way
 * (a checkout that keeps its own cache of a shared directory), though Tierlock uses the direct port
 * for it by default.
 */
class FileSystemSyncPortContractTest extends SyncPortContract {

  @TempDir
  Path dir;

  @Override
  protected Datastore createDatastore() {
    return FileSystemDatastore.open(dir.resolve("tier"));
  }
}
