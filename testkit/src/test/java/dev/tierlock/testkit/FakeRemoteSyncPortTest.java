package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;

/** Runs the sync-port contract on the fake remote. */
class FakeRemoteSyncPortTest extends SyncPortContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }
}
