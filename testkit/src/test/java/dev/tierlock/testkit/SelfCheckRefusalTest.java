package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a checkout's first write meets on a store that lacks what the self-check proves: {@code
 * datastore_unsafe} naming what the store lacks, before the lease is taken, never a lock "held by an
 * unknown holder", a {@code lock_timeout} or a "retry later"; and no probe is left behind.
 */
class SelfCheckRefusalTest {

  @TempDir Path temp;

  @Test
  void aClientThatRejectsEveryConditionalCall_isUnsafe_atTheFirstPut_notALockHeldByAnUnknownHolder() {
    try (FakeRemote remote = FakeRemote.create()) {
      Datastore rejecting = new Decorated(remote) {
        @Override
        public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
          if (condition != WriteCondition.none()) {
            throw new DatastoreUnavailableException("Cannot write " + key + ": conditional requests are not supported",
                null);
          }
          return remote.write(key, body, condition, metadata);
        }

        @Override
        public DeleteResult delete(ObjectKey key, WriteCondition condition) {
          if (condition != WriteCondition.none()) {
            throw new DatastoreUnavailableException("Cannot delete " + key + ": conditional requests are not supported",
                null);
          }
          return remote.delete(key, condition);
        }
      };
      TestCheckout a = TestCheckout.builder(rejecting, temp.resolve("a"), TestClock.create()).deferSelfCheck().build();

      assertThatThrownBy(() -> a.put("@s/x", "1"))
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore " + remote.identity() + ": it does not honour write"
              + " preconditions (it rejects create-only writes: two in a row failed while a write without a condition"
              + " landed (Cannot write .tierlock-selfcheck/probe-")
          .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
      assertThat(remote.keys()).as("no lease, no lockfile, no probe").isEmpty();
      a.close();
    }
  }

  @Test
  void aStoreThatAnswersWritesWithNoVersion_isUnsafe_atTheFirstPut_notRetryLater() {
    try (FakeRemote remote = FakeRemote.create()) {
      Datastore unversioned = new Decorated(remote) {
        @Override
        public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
          return remote.write(key, body, condition, metadata) instanceof WriteResult.Written
              ? new WriteResult.Written(noVersion()) : WriteResult.PreconditionFailed.INSTANCE;
        }
      };
      TestCheckout a = TestCheckout.builder(unversioned, temp.resolve("a"), TestClock.create()).deferSelfCheck().build();

      assertThatThrownBy(() -> a.put("@s/x", "1"))
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageContaining("(a write that landed came back with no version: the store does not version its"
              + " objects, so no write could be conditional on one, probe key .tierlock-selfcheck/probe-")
          .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
      assertThat(remote.keys()).as("no lease, no lockfile, no probe").isEmpty();
      a.close();
    }
  }

  /** The version a store that breaks the contract answers with: none. */
  @SuppressWarnings("NullAway")
  private static ObjectVersion noVersion() {
    return null;
  }

  /** A decorator that declares nothing, overriding what it breaks. */
  private static class Decorated extends ForwardingDatastore {
    private final Datastore delegate;

    Decorated(Datastore delegate) {
      this.delegate = delegate;
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }
  }
}
