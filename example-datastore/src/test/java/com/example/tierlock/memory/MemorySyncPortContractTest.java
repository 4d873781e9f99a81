package com.example.tierlock.memory;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.SyncPortContract;

class MemorySyncPortContractTest extends SyncPortContract {

  @Override
  protected Datastore createDatastore() {
    return new MemoryDatastore(new MemoryDatastore.Bucket(), "contract");
  }
}
