package com.example.tierlock.memory;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.LockfileTransactionContract;

class MemoryLockfileTransactionContractTest extends LockfileTransactionContract {

  @Override
  protected Datastore createDatastore() {
    return new MemoryDatastore(new MemoryDatastore.Bucket(), "contract");
  }
}
