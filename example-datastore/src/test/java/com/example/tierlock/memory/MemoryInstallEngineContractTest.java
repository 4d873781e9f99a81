package com.example.tierlock.memory;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.InstallEngineContract;

class MemoryInstallEngineContractTest extends InstallEngineContract {

  @Override
  protected Datastore createDatastore() {
    return new MemoryDatastore(new MemoryDatastore.Bucket(), "contract");
  }
}
