package com.example.tierlock.memory;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.ConvergeContract;

class MemoryConvergeContractTest extends ConvergeContract {

  @Override
  protected Datastore createDatastore() {
    return new MemoryDatastore(new MemoryDatastore.Bucket(), "contract");
  }
}
