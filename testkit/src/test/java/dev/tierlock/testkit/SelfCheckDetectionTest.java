package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tierlock.spi.DatastoreUnsafeException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The self-check against stores whose preconditions hold one request at a time but not atomically
 * ({@link Faults#nonAtomicPreconditions}): it races create-only writes, compare-and-swap writes and
 * conditional deletes, with enough racers and rounds that a store letting 2 of 8 racers win in a
 * quarter of races is refused at least 99 times in 100. The rate is measured over seeded checks,
 * each on a fresh store: the faults draw from a seeded generator and decide every conditional call
 * one at a time, so each check's verdict is the same whatever the threads do.
 */
class SelfCheckDetectionTest {

  /** How many seeded checks measure the detection rate of each kind of precondition. */
  private static final int CHECKS = 100;

  @TempDir Path temp;

  /**
   * A delete that checks the version and then deletes lets a lease release that races a takeover
   * delete the taker's record: a store whose conditional deletes do that, every time, is refused.
   */
  @Test
  void aStoreWhoseConditionalDeletesAreCheckThenAct_isRefused_beforeAnythingIsWritten() {
    try (FakeRemote remote = FakeRemote.create()) {
      remote.faults().nonAtomicPreconditions(EnumSet.of(Faults.Precondition.CONDITIONAL_DELETE), 2, 1.0,
          new SplittableRandom(21));
      TestCheckout a = TestCheckout.builder(remote, temp.resolve("a"), TestClock.create()).deferSelfCheck().build();

      assertThatThrownBy(() -> a.put("@s/x", "1"))
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore " + remote.identity() + ": it does not honour write"
              + " preconditions (4 concurrent writes and 4 deletes conditional on one version had 2 winners (")
          .hasMessageContaining(" deletes), not exactly one, probe key .tierlock-selfcheck/probe-")
          .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
      assertThat(remote.keys()).as("nothing of the caller's, and no probe").isEmpty();
    }
  }

  /**
   * S3Mock 5.2.0 let 2 to 8 of 8 concurrent create-only writers win in a quarter to a half of
   * rounds. A store that lets 2 of 8 racers win a quarter of the races of one kind, and honours the
   * other kinds, is the hardest such store to catch: each of the 20 rounds catches it with
   * probability 1/4, so a check refuses it with probability 1 - (3/4)<sup>20</sup> = 99.68 %.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Faults.Precondition.class)
  void aStoreLetting2Of8RacersWinAQuarterOfTheRaces_isRefusedAtLeast99TimesIn100(Faults.Precondition kind) {
    int refused = 0;
    for (int seed = 1; seed <= CHECKS; seed++) {
      try (FakeRemote remote = FakeRemote.create()) {
        remote.faults().nonAtomicPreconditions(EnumSet.of(kind), 2, 0.25, new SplittableRandom(seed));
        TestCheckout checkout = TestCheckout.builder(remote, temp.resolve(kind + "-" + seed), TestClock.create())
            .deferSelfCheck().build();

        Throwable thrown = catchThrowable(() -> checkout.tierlock().checkDatastore());

        if (thrown != null) {
          assertThat(thrown).as("seed %d", seed).isInstanceOf(DatastoreUnsafeException.class)
              .hasMessageContaining(" had 2 winners (");
          refused++;
        }
        assertThat(remote.keys()).as("seed %d leaves no probe", seed)
            .noneMatch(k -> k.value().startsWith(".tierlock-selfcheck/probe-"));
        checkout.close();
      }
    }
    assertThat(refused).as("checks of %d seeded stores that refused it", CHECKS).isGreaterThanOrEqualTo(99);
  }

  /** With no fault in force the same seeded stores all pass: the refusals above are the faults' doing. */
  @Test
  void theSameStoresWithAtomicPreconditions_allPass() {
    for (int seed = 1; seed <= 3; seed++) {
      try (FakeRemote remote = FakeRemote.create()) {
        remote.faults().nonAtomicPreconditions(EnumSet.allOf(Faults.Precondition.class), 2, 0.0,
            new SplittableRandom(seed));
        TestCheckout checkout = TestCheckout.builder(remote, temp.resolve("atomic-" + seed), TestClock.create())
            .deferSelfCheck().build();

        checkout.tierlock().checkDatastore();

        assertThat(remote.keys()).as("only the verdict is left").singleElement().asString()
            .startsWith(".tierlock-selfcheck/verdict");
        checkout.close();
      }
    }
  }
}
