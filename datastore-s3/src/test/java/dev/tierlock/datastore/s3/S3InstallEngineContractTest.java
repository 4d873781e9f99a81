package dev.tierlock.datastore.s3;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.InstallEngineContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The install engine's contract (install, upgrade, restore from the tier, remove), over {@link S3Datastore} on the real S3 server
 * (S3Proxy in this JVM), each test on a fresh bucket.
 */
@ExtendWith(S3ServerExtension.class)
class S3InstallEngineContractTest extends InstallEngineContract {

  private final S3TestBucket bucket;

  S3InstallEngineContractTest(S3TestBucket bucket) {
    this.bucket = bucket;
  }

  @Override
  protected Datastore createDatastore() {
    return bucket.datastore("tier");
  }
}
