package dev.tierlock.datastore.s3;

import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.DatastoreContract;
import dev.tierlock.testkit.DatastoreFeature;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The datastore contract against the real S3 server, each test on a fresh bucket, each store on a
 * prefix of its own (the identity test opens two).
 */
@ExtendWith(S3ServerExtension.class)
class S3DatastoreContractTest extends DatastoreContract {

  private final S3TestBucket bucket;
  private final AtomicInteger stores = new AtomicInteger();

  S3DatastoreContractTest(S3TestBucket bucket) {
    this.bucket = bucket;
  }

  @Override
  protected Datastore createDatastore() {
    return bucket.datastore("contract-" + stores.incrementAndGet());
  }

  /**
   * Every feature but {@link DatastoreFeature#LISTING_METADATA} (S3 listings carry no user metadata):
   * 304 reads, atomic conditional deletes, metadata, ABSENT on deletes, paging, keys that are also
   * prefixes.
   */
  @Override
  protected Set<DatastoreFeature> features() {
    return EnumSet.complementOf(EnumSet.of(DatastoreFeature.LISTING_METADATA));
  }
}
