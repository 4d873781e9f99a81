package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;
import java.util.EnumSet;
import java.util.Set;

/** The datastore contract over the fake remote, with every feature declared. */
class FakeRemoteDatastoreTest extends DatastoreContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }

  @Override
  protected Set<DatastoreFeature> features() {
    return EnumSet.allOf(DatastoreFeature.class);
  }
}
