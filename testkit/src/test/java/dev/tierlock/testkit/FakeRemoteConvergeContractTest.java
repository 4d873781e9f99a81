package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;

/** The convergence contract on the fake remote. */
class FakeRemoteConvergeContractTest extends ConvergeContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }
}
