package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;

/** The install engine's contract on the fake remote. */
class FakeRemoteInstallEngineTest extends InstallEngineContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }
}
