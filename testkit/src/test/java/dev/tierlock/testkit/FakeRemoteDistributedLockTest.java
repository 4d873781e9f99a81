package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;

/** The lease lock's contract on the fake remote. */
class FakeRemoteDistributedLockTest extends DistributedLockContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }
}
