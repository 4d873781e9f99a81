package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.DatastoreContract;
import dev.tierlock.testkit.DatastoreFeature;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;

/**
 * The testkit's datastore contract on a fresh directory per test. Every feature is declared but
 * {@link DatastoreFeature#PAGINATION_AT_SCALE} (a directory walk has no pages to cross) and {@link
 * DatastoreFeature#OBJECT_AND_PREFIX_KEYS} (a path is a file or a directory, never both).
 */
class FileSystemDatastoreContractTest extends DatastoreContract {

  @TempDir
  Path dir;

  @Override
  protected Datastore createDatastore() {
    return FileSystemDatastore.open(dir.resolve("tier"));
  }

  @Override
  protected Set<DatastoreFeature> features() {
    return EnumSet.complementOf(EnumSet.of(DatastoreFeature.PAGINATION_AT_SCALE, DatastoreFeature.OBJECT_AND_PREFIX_KEYS));
  }
}
