package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;

/** The datastore contract over the fake remote, with every feature declared. */
class FakeRemoteDatastoreTest extends DatastoreContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }
}
