package dev.tierlock.datastore.gcs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.DatastoreContract;
import dev.tierlock.testkit.DatastoreFeature;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtendWith;

/** The datastore contract, against {@link GcsDatastore} on the fake server through the real client over HTTP. */
@ExtendWith(GcsFakeServerExtension.class)
class GcsDatastoreContractTest extends DatastoreContract {

  private final GcsFakeServer server;

  GcsDatastoreContractTest(GcsFakeServer server) {
    this.server = server;
  }

  @Override
  protected Datastore createDatastore() {
    return GcsDatastore.of(TestStorage.retrying(server), server.newBucket(), "tier/root");
  }

  /**
   * Every feature: 304 reads, generation-conditional deletes, metadata (in listings too), 404 on a
   * missing delete, paging, and keys that are also prefixes.
   */
  @Override
  protected Set<DatastoreFeature> features() {
    return EnumSet.allOf(DatastoreFeature.class);
  }
}
