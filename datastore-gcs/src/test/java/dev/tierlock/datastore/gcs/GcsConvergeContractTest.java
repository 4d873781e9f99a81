package dev.tierlock.datastore.gcs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.ConvergeContract;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/** The convergence contract over {@link GcsDatastore} on the fake server, through the real client over HTTP. */
@ExtendWith(GcsFakeServerExtension.class)
class GcsConvergeContractTest extends ConvergeContract {

  private final GcsFakeServer server;

  GcsConvergeContractTest(GcsFakeServer server) {
    this.server = server;
  }

  @Override
  protected Datastore createDatastore() {
    return GcsDatastore.of(TestStorage.retrying(server), server.newBucket(), "tier");
  }
}
