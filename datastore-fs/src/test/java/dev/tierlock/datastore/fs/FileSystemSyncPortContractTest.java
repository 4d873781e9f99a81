package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.SyncPortContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The sync-port contract (fetching and publishing the shared lockfile) over a {@link FileSystemDatastore}. */
class FileSystemSyncPortContractTest extends SyncPortContract {

  @TempDir Path dir;

  @Override
  protected Datastore createDatastore() {
    return FileSystemDatastore.open(dir.resolve("tier"));
  }
}
