package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;

/** The lockfile-transaction contract on the fake remote, whose versions are fresh generations (as on GCS). */
class FakeRemoteLockfileTransactionTest extends LockfileTransactionContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }
}
