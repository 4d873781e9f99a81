package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;

/** The archive store contract over the fake remote. */
class FakeRemoteArchiveStoreTest extends ArchiveStoreContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }
}
