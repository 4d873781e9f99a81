package dev.tierlock.datastore.s3;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.SyncPortContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sync-port contract (hydrate and publish of the shared lockfile), over {@link S3Datastore} on the real S3 server
 * (S3Proxy in this JVM), each test on a fresh bucket.
 */
@ExtendWith(S3ServerExtension.class)
class S3SyncPortContractTest extends SyncPortContract {

  private final S3TestBucket bucket;

  S3SyncPortContractTest(S3TestBucket bucket) {
    this.bucket = bucket;
  }

  @Override
  protected Datastore createDatastore() {
    return bucket.datastore("tier");
  }
}
