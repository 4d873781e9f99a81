package com.example.tierlock.memory;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.DatastoreContract;
import dev.tierlock.testkit.DatastoreFeature;
import java.util.EnumSet;
import java.util.Set;

/** The datastore contract on a fresh bucket per call. */
class MemoryDatastoreContractTest extends DatastoreContract {

  @Override
  protected Datastore createDatastore() {
    return new MemoryDatastore(new MemoryDatastore.Bucket(), "contract");
  }

  @Override
  protected Set<DatastoreFeature> features() {
    return EnumSet.allOf(DatastoreFeature.class); // all eight: conditional reads and deletes, metadata, ...
  }
}
