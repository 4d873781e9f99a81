package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.LockfileTransactionContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lockfile-transaction contract over a {@link FileSystemDatastore} in a fresh directory per
 * test. The contract wraps the store in its fault-injecting {@link dev.tierlock.testkit.FaultyDatastore},
 * which does not offer {@link dev.tierlock.spi.DirectAccess}, so the checkouts run in {@link
 * dev.tierlock.SyncMode#REMOTE} over the object operations; direct mode is proven by {@link
 * FileSystemDirectModeTest} and {@link FileSystemDirectModeProcessTest}.
 */
class FileSystemLockfileTransactionContractTest extends LockfileTransactionContract {

  @TempDir
  Path dir;

  @Override
  protected Datastore createDatastore() {
    return FileSystemDatastore.open(dir.resolve("tier"));
  }
}
