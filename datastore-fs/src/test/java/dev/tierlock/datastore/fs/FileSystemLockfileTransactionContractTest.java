package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.LockfileTransactionContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lockfile-transaction contract over a {@link FileSystemDatastore} as users configure it: the
 * bare store in a fresh directory per test, no wrapper switching anything.
 */
class FileSystemLockfileTransactionContractTest extends LockfileTransactionContract {

  @TempDir Path dir;

  @Override
  protected Datastore createDatastore() {
    return FileSystemDatastore.open(dir.resolve("tier"));
  }
}
