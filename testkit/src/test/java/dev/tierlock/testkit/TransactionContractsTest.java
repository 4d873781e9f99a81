package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import org.junit.jupiter.api.Test;

/**
 * Checks the transaction and sync-port contracts themselves: they fail stores that break what a
 * transaction relies on, where they must, so their cases are not vacuous. (That they pass a sound
 * store is what the fake remote's subclasses show.)
 */
class TransactionContractsTest {

  private static final int TRANSACTION_CASES = 60;
  private static final int SYNC_PORT_CASES = 17;

  @Test
  void transactionContract_onAStoreThatDropsMetadata_failsWhereALineageMustSettleALostAnswer() {
    EngineRun run = EngineRun.of(TransactionsWithoutMetadata.class);

    assertThat(run.results()).hasSize(TRANSACTION_CASES);
    assertThat(run.failed()).as("%s", run.results()).contains(
        "aLostAnswerWithAWorkingReadBack_resolvesToSuccess_withOneWrite",
        "aLostAnswer_thenFewerPeerCommitsThanTheLineageHolds_isSettledAsLanded",
        "aCrashBetweenThePublishAndClearingTheRecord_isSettledAsLanded_andNeverRevertsALaterPeer");
    assertThat(run.results()).containsEntry("aConflictingPeerChange_failsThatEntryNamingBothValues_andPublishesTheRest",
        EngineRun.PASSED);
  }

  @Test
  void transactionContract_onAStoreWhoseConditionalReadsNeverSeeAChange_failsTheStaleCacheCases() {
    EngineRun run = EngineRun.of(TransactionsWithStaleReads.class);

    assertThat(run.results()).hasSize(TRANSACTION_CASES);
    assertThat(run.failed()).as("%s", run.results()).contains(
        "put_fromAStaleCache_keepsAPeersEntry",
        "remove_fromAStaleCache_keepsAPeersAddition",
        "aHolderPausedPastItsTtl_cannotOverwriteAPeersNewerVersion");
  }

  @Test
  void syncPortContract_onStoresThatDropMetadataOrReadStale_failsTheirCases() {
    EngineRun withoutMetadata = EngineRun.of(SyncPortWithoutMetadata.class);
    EngineRun stale = EngineRun.of(SyncPortWithStaleReads.class);

    assertThat(withoutMetadata.results()).hasSize(SYNC_PORT_CASES);
    assertThat(withoutMetadata.failed()).as("%s", withoutMetadata.results()).contains(
        "aPublish_isConditionalOnTheVersionFetched_andCarriesItsCommitIdAndTheLineage",
        "aLongChainOfCommits_keepsAsMuchLineageAsTheStoresMetadataHolds",
        "aLostAnswerWithAWorkingReadBack_resolvesToLanded_withOneWrite");
    assertThat(stale.failed()).as("%s", stale.results()).contains(
        "aFetchAfterAPeerPublished_readsTheNewBytes_andCachesThem");
  }

  /** A store that keeps no user metadata, silently: no commit id, no lineage. */
  static Datastore withoutMetadata() {
    FakeRemote remote = FakeRemote.create();
    return new ForwardingDatastore() {
      @Override
      protected Datastore delegate() {
        return remote;
      }

      @Override
      public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        return remote.write(key, body, condition, ObjectMetadata.EMPTY);
      }
    };
  }

  /** A store that answers every conditional read "not modified", changed or not. */
  static Datastore withStaleReads() {
    FakeRemote remote = FakeRemote.create();
    return new ForwardingDatastore() {
      @Override
      protected Datastore delegate() {
        return remote;
      }

      @Override
      public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
        ReadResult result = remote.read(key, condition, maxBytes);
        return condition instanceof ReadCondition.IfNoneMatch stale && result instanceof ReadResult.Found
            ? new ReadResult.NotModified(stale.version()) : result;
      }
    };
  }

  static class TransactionsWithoutMetadata extends LockfileTransactionContract {
    @Override
    protected Datastore createDatastore() {
      return withoutMetadata();
    }
  }

  static class TransactionsWithStaleReads extends LockfileTransactionContract {
    @Override
    protected Datastore createDatastore() {
      return withStaleReads();
    }
  }

  static class SyncPortWithoutMetadata extends SyncPortContract {
    @Override
    protected Datastore createDatastore() {
      return withoutMetadata();
    }
  }

  static class SyncPortWithStaleReads extends SyncPortContract {
    @Override
    protected Datastore createDatastore() {
      return withStaleReads();
    }
  }
}
