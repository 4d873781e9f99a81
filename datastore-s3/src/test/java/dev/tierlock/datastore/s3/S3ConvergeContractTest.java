package dev.tierlock.datastore.s3;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.ConvergeContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The convergence contract (restore from the tier alone, removal, retries, what a pass costs), over {@link S3Datastore}
 * on the real S3 server (S3Proxy in this JVM), each test on a fresh bucket.
 */
@ExtendWith(S3ServerExtension.class)
class S3ConvergeContractTest extends ConvergeContract {

  private final S3TestBucket bucket;

  S3ConvergeContractTest(S3TestBucket bucket) {
    this.bucket = bucket;
  }

  @Override
  protected Datastore createDatastore() {
    return bucket.datastore("tier");
  }
}
