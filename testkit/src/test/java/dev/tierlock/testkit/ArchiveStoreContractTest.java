package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.WriteCondition;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Checks the archive store contract itself: it fails a store whose deletes ignore their condition
 * (the archive store's own delete case, and every checkout through the self-check), and it refuses
 * a store that is not empty, so its deletion tests are not vacuous.
 */
class ArchiveStoreContractTest {

  private static final int CONTRACT_TESTS = 32;

  /** The cases that run whole checkouts, whose self-check proves conditional deletes first. */
  private static final Set<String> CHECKOUT_TESTS = Set.of(
      "install_thenPeerRestore_restoresTheSameBytesFromTheTierAlone",
      "install_whenTheArchiveWriteFails_publishesNoEntry",
      "install_whenTheLockfilePublishFails_keepsTheArchive_andTheReplayPublishesTheEntry",
      "install_sameArchiveFromTwoCheckoutsAtOnce_bothSucceedWithOneObject",
      "restore_tamperedArchiveInTheTier_failsWithNothingExtractedAndNothingCached",
      "install_stagedCopyTurnedIntoALink_isRefusedAndNothingTravels",
      "installUpdateRemoveAndRestore_checkoutsOnTheUnwrappedDatastore_shareOneTier",
      "update_keepsTheSupersededArchive_andMarksItBeforeTheLockfilePublish",
      "remove_keepsTheArchive_forACollection",
      "remove_whenTheLockfilePublishFails_keepsTheArchive_throughTheReplay",
      "update_whenAPeerPinsTheSupersededArchiveAgain_keepsIt");

  @Test
  void contract_storeDeletingUnconditionally_failsTheConditionalDeleteAndEveryCheckout() {
    EngineRun run = EngineRun.of(DeletingUnconditionally.class);

    assertThat(run.results()).hasSize(CONTRACT_TESTS);
    assertThat(run.failed()).as("%s", run.results())
        .contains("delete_whenReplacedMeanwhile_keepsTheObject")
        .containsAll(CHECKOUT_TESTS)
        .hasSize(CHECKOUT_TESTS.size() + 1);
    assertThat(CHECKOUT_TESTS).allSatisfy(test -> assertThat(run.results().get(test))
        .startsWith("DatastoreUnsafeException: Cannot write to datastore ")
        .contains("does not honour write preconditions"));
  }

  @Test
  void contract_storeThatIsNotEmpty_failsEveryTest() {
    EngineRun run = EngineRun.of(NotEmpty.class);

    assertThat(run.results()).hasSize(CONTRACT_TESTS);
    assertThat(run.failed()).hasSize(CONTRACT_TESTS);
    assertThat(run.results().values()).allMatch(r -> r.contains("createDatastore() must return an empty store"));
  }

  /** The fake remote behind a wrapper whose deletes drop their condition, claiming to be sound. */
  static class DeletingUnconditionally extends ArchiveStoreContract {
    @Override
    protected Datastore createDatastore() {
      FakeRemote remote = FakeRemote.create();
      return new ForwardingDatastore() {
        @Override
        protected Datastore delegate() {
          return remote;
        }

        @Override
        public DeleteResult delete(ObjectKey key, WriteCondition condition) {
          return remote.delete(key, WriteCondition.none());
        }
      };
    }
  }

  /** A store handed to the contract with an object already in it. */
  static class NotEmpty extends ArchiveStoreContract {
    @Override
    protected Datastore createDatastore() {
      FakeRemote remote = FakeRemote.create();
      remote.plant(ObjectKey.of("left/over"), new byte[] {1});
      return remote;
    }
  }
}
