package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Checks the contract itself: it passes a store that lacks every optional feature but behaves as
 * documented, and it fails stores that break the rules, so none of its tests is vacuous.
 */
class DatastoreContractTest {

  private static final int CONTRACT_TESTS = 43;

  @Test
  void contract_storeWithoutFeatures_passesThroughEveryFallback() {
    EngineRun run = EngineRun.of(WithoutFeatures.class);

    assertThat(run.results()).hasSize(CONTRACT_TESTS);
    assertThat(run.failed()).as("%s", run.results()).isEmpty();
  }

  @Test
  void contract_storeIgnoringPreconditions_failsEveryPreconditionTest() {
    EngineRun run = EngineRun.of(IgnoringPreconditions.class);

    assertThat(run.results()).hasSize(CONTRACT_TESTS);
    assertThat(run.failed()).contains(
        "write_mustNotExistTwice_secondFailsAndKeepsFirst",
        "write_mustMatchStaleVersion_failsAndKeepsContent",
        "write_mustMatchOnMissingKey_failsAndCreatesNothing",
        "write_everyWrite_producesANewVersion",
        "write_afterDelete_createsAgainWithMustNotExist",
        "delete_mustMatchStaleVersion_failsAndKeepsObject",
        "write_mustNotExistRace_exactlyOneWinner",
        "write_mustMatchRace_exactlyOneWinner");
    assertThat(run.results()).containsEntry("read_absentKey_reportsAbsent", EngineRun.PASSED);
  }

  @Test
  void contract_storeDeclaringTooFewFeatures_failsTheFallbackTests() {
    EngineRun run = EngineRun.of(UnderDeclared.class);

    assertThat(run.failed()).containsExactlyInAnyOrder(
        "read_ifNoneMatchCurrentVersion_reportsNotModified",
        "write_withMetadata_roundTripsEverywhere",
        "write_newMetadata_replacesEveryOldEntry",
        "delete_mustMatchCurrentVersion_deletes",
        "delete_mustMatchStaleVersion_failsAndKeepsObject",
        "delete_mustMatchOnMissingKey_reportsAbsent",
        "delete_mustMatchRace_exactlyOneWinner",
        "write_keyThatIsAlsoAPrefix_isStoredOrRefusedAsDeclared",
        "write_metadataOfExactlyTheStoreCapacity_roundTrips",
        "modified_isTheStoresTimeOfEachWrite_inEveryView");
  }

  @Test
  void contract_storeIgnoringBoundsAndSharingAnIdentity_failsTheLimitAndIdentityTests() {
    EngineRun run = EngineRun.of(Careless.class);

    assertThat(run.results()).hasSize(CONTRACT_TESTS);
    assertThat(run.failed()).as("%s", run.results()).containsExactlyInAnyOrder(
        "identity_isStableAndDiffersBetweenTwoFreshStores",
        "read_objectLargerThanTheBound_throwsObjectTooLargeAndChangesNothing",
        "read_withABoundThatIsNotPositive_isRefused",
        "write_metadataOverTheStoreCapacity_isRefusedAndChangesNothing");
  }

  @Test
  void contract_storeWhoseIdentityDrifts_failsTheIdentityTest() {
    EngineRun run = EngineRun.of(Drifting.class);

    assertThat(run.failed()).as("%s", run.results())
        .containsExactly("identity_isStableAndDiffersBetweenTwoFreshStores");
  }

  @Test
  void contract_storeThatIsNotEmpty_failsEveryTest() {
    EngineRun run = EngineRun.of(NotEmpty.class);

    assertThat(run.results()).hasSize(CONTRACT_TESTS);
    assertThat(run.failed()).hasSize(CONTRACT_TESTS);
    assertThat(run.results().values()).allMatch(r -> r.contains("createDatastore() must return an empty store"));
  }

  /**
   * The fake remote degraded to every documented fallback but one: it always holds a key and keys
   * below it, so it declares {@link DatastoreFeature#OBJECT_AND_PREFIX_KEYS} (the refusal fallback
   * runs on the filesystem datastore's contract test).
   */
  static class WithoutFeatures extends DatastoreContract {
    @Override
    protected Datastore createDatastore() {
      return new Degraded(FakeRemote.create());
    }

    @Override
    protected Set<DatastoreFeature> features() {
      return EnumSet.of(DatastoreFeature.OBJECT_AND_PREFIX_KEYS);
    }
  }

  /** A store that ignores every precondition, claiming to be sound. */
  static class IgnoringPreconditions extends DatastoreContract {
    @Override
    protected Datastore createDatastore() {
      FakeRemote remote = FakeRemote.create();
      remote.ignorePreconditions();
      return remote;
    }

    @Override
    protected Set<DatastoreFeature> features() {
      return EnumSet.of(DatastoreFeature.NOT_MODIFIED_READS, DatastoreFeature.USER_METADATA);
    }
  }

  /** The full fake remote, declaring only what every store has. */
  static class UnderDeclared extends DatastoreContract {
    @Override
    protected Datastore createDatastore() {
      return FakeRemote.create();
    }

    @Override
    protected Set<DatastoreFeature> features() {
      return EnumSet.of(DatastoreFeature.DELETE_REPORTS_ABSENT);
    }
  }

  /** A store handed to the contract with an object already in it. */
  static class NotEmpty extends DatastoreContract {
    @Override
    protected Datastore createDatastore() {
      FakeRemote remote = FakeRemote.create();
      remote.plant(ObjectKey.of("left/over"), new byte[] {1});
      return remote;
    }

    @Override
    protected Set<DatastoreFeature> features() {
      return EnumSet.allOf(DatastoreFeature.class);
    }
  }

  /**
   * The fake remote behind a wrapper that reads whatever the bound, claims a metadata capacity of
   * 100 bytes while letting the fake's 2048 through, and gives every instance the same identity.
   */
  static class Careless extends DatastoreContract {
    @Override
    protected Datastore createDatastore() {
      FakeRemote remote = FakeRemote.create();
      return new ForwardingDatastore() {
        @Override
        protected Datastore delegate() {
          return remote;
        }

        @Override
        public DatastoreIdentity identity() {
          return new DatastoreIdentity("fake", "one-for-all", "", "");
        }

        @Override
        public int maxMetadataBytes() {
          return 100;
        }

        @Override
        public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
          return remote.read(key, condition, Long.MAX_VALUE);
        }
      };
    }

    @Override
    protected Set<DatastoreFeature> features() {
      return EnumSet.allOf(DatastoreFeature.class);
    }
  }

  /** The fake remote behind a wrapper whose identity changes with every call. */
  static class Drifting extends DatastoreContract {
    @Override
    protected Datastore createDatastore() {
      FakeRemote remote = FakeRemote.create();
      AtomicInteger calls = new AtomicInteger();
      return new ForwardingDatastore() {
        @Override
        protected Datastore delegate() {
          return remote;
        }

        @Override
        public DatastoreIdentity identity() {
          DatastoreIdentity real = remote.identity();
          return new DatastoreIdentity(real.scheme(), real.endpoint() + "#" + calls.incrementAndGet(), real.container(),
              real.prefix());
        }
      };
    }

    @Override
    protected Set<DatastoreFeature> features() {
      return EnumSet.allOf(DatastoreFeature.class);
    }
  }

  /**
   * Wraps a store and takes away every optional feature the documented way: no not-modified reads,
   * no conditional deletes, no metadata, deletes of missing keys that report DELETED, and no
   * modification times.
   */
  private static final class Degraded extends ForwardingDatastore {
    private final Datastore delegate;

    Degraded(Datastore delegate) {
      this.delegate = delegate;
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }

    @Override
    public String describe() {
      return "degraded+" + delegate.describe();
    }

    @Override
    public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
      ReadResult result = delegate.read(key, ReadCondition.always(), maxBytes);
      return result instanceof ReadResult.Found found ? new ReadResult.Found(undated(found.object()), found.bytes())
          : result;
    }

    @Override
    public java.util.Optional<StoredObject> stat(ObjectKey key) {
      return delegate.stat(key).map(Degraded::undated);
    }

    @Override
    public java.util.List<StoredObject> list(String prefix) {
      return delegate.list(prefix).stream().map(Degraded::undated).toList();
    }

    @Override
    public java.util.Optional<ObjectStream> openStream(ObjectKey key) {
      return delegate.openStream(key).map(s -> ObjectStream.of(undated(s.object()), s.stream(), s::close));
    }

    private static StoredObject undated(StoredObject o) {
      return new StoredObject(o.key(), o.version(), o.size(), o.metadata());
    }
    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      if (!metadata.values().isEmpty()) {
        throw new IllegalArgumentException("Cannot write object " + key + " at " + describe() + ": it keeps no metadata");
      }
      return delegate.write(key, body, condition, metadata);
    }

    @Override
    public DeleteResult delete(ObjectKey key, WriteCondition condition) {
      if (condition instanceof WriteCondition.MustMatch) {
        throw new DatastoreUnsafeException(
            "Cannot delete object " + key + " at " + describe() + ": it cannot delete conditionally", null);
      }
      DeleteResult result = delegate.delete(key, condition);
      return result == DeleteResult.ABSENT ? DeleteResult.DELETED : result;
    }


  }
}
