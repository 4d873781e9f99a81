package dev.tierlock.datastore.s3;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.LockfileTransactionContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lockfile-transaction contract (stale caches, races with peers, faults, pending changes), over {@link S3Datastore} on the real S3 server
 * (S3Proxy in this JVM), each test on a fresh bucket.
 */
@ExtendWith(S3ServerExtension.class)
class S3LockfileTransactionContractTest extends LockfileTransactionContract {

  private final S3TestBucket bucket;

  S3LockfileTransactionContractTest(S3TestBucket bucket) {
    this.bucket = bucket;
  }

  @Override
  protected Datastore createDatastore() {
    return bucket.datastore("tier");
  }
}
