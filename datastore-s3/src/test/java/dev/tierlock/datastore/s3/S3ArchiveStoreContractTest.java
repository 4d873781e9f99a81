package dev.tierlock.datastore.s3;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.ArchiveStoreContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The archive-store contract (create-only archives, verified reads, caps), over {@link S3Datastore} on the real S3 server
 * (S3Proxy in this JVM), each test on a fresh bucket.
 */
@ExtendWith(S3ServerExtension.class)
class S3ArchiveStoreContractTest extends ArchiveStoreContract {

  private final S3TestBucket bucket;

  S3ArchiveStoreContractTest(S3TestBucket bucket) {
    this.bucket = bucket;
  }

  @Override
  protected Datastore createDatastore() {
    return bucket.datastore("tier");
  }
}
