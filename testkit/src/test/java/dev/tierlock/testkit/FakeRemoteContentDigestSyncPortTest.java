package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;

/** The sync-port contract on the fake remote whose versions are digests of the bytes, and repeat (as S3 ETags). */
class FakeRemoteContentDigestSyncPortTest extends SyncPortContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.builder().versions(FakeRemote.Versions.CONTENT_DIGEST).build();
  }
}
