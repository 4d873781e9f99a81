package dev.tierlock.datastore.s3;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.DistributedLockContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lease-lock contract (acquire, heartbeat, takeover, release, faults), over {@link S3Datastore} on the real S3 server
 * (S3Proxy in this JVM), each test on a fresh bucket.
 */
@ExtendWith(S3ServerExtension.class)
class S3DistributedLockContractTest extends DistributedLockContract {

  private final S3TestBucket bucket;

  S3DistributedLockContractTest(S3TestBucket bucket) {
    this.bucket = bucket;
  }

  @Override
  protected Datastore createDatastore() {
    return bucket.datastore("tier");
  }
}
