package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;

/**
 * The lockfile-transaction contract on the fake remote whose versions are digests of the bytes (as
 * S3 ETags): equal bytes bring an old version back.
 */
class FakeRemoteContentDigestLockfileTransactionTest extends LockfileTransactionContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.builder().versions(FakeRemote.Versions.CONTENT_DIGEST).build();
  }
}
