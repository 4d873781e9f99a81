package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;

/** The sync-port contract on the fake remote (2048 bytes of metadata, as S3). */
class FakeRemoteSyncPortTest extends SyncPortContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }
}
