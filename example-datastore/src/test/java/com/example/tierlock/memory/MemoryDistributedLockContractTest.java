package com.example.tierlock.memory;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.DistributedLockContract;

class MemoryDistributedLockContractTest extends DistributedLockContract {

  @Override
  protected Datastore createDatastore() {
    return new MemoryDatastore(new MemoryDatastore.Bucket(), "contract");
  }
}
