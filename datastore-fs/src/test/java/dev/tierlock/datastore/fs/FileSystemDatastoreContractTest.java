package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.DatastoreContract;
import dev.tierlock.testkit.DatastoreFeature;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;

/**
 * The testkit's datastore contract on a fresh directory per store (the identity test opens two).
 * Every feature is declared but {@link DatastoreFeature#PAGINATION_AT_SCALE} (a directory walk has
 * no pages to cross) and {@link DatastoreFeature#OBJECT_AND_PREFIX_KEYS} (a path is a file or a
 * directory, never both).
 */
class FileSystemDatastoreContractTest extends DatastoreContract {

  private final AtomicInteger stores = new AtomicInteger();

  @TempDir
  Path dir;

  @Override
  protected Datastore createDatastore() {
    return FileSystemDatastore.open(dir.resolve("tier-" + stores.incrementAndGet()));
  }

  @Override
  protected Set<DatastoreFeature> features() {
    return EnumSet.complementOf(EnumSet.of(DatastoreFeature.PAGINATION_AT_SCALE, DatastoreFeature.OBJECT_AND_PREFIX_KEYS));
  }
}
