package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;
import java.util.EnumSet;
import java.util.Set;

/**
 * The datastore contract over the fake remote with S3-like versions ({@link
 * FakeRemote.Versions#CONTENT_DIGEST}), every feature declared: preconditions stay atomic when
 * versions are digests of the bytes.
 */
class FakeRemoteContentDigestDatastoreTest extends DatastoreContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.builder().versions(FakeRemote.Versions.CONTENT_DIGEST).build();
  }

  @Override
  protected Set<DatastoreFeature> features() {
    return EnumSet.allOf(DatastoreFeature.class);
  }
}
