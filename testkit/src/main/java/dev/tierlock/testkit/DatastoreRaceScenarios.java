package dev.tierlock.testkit;

import static dev.tierlock.testkit.DatastoreSteps.body;
import static dev.tierlock.testkit.DatastoreSteps.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The {@link DatastoreContract} races: 8 threads released together on create-only writes,
 * compare-and-swap writes and conditional deletes, where exactly one may win (3 rounds each).
 */
final class DatastoreRaceScenarios {

  private static final int RACERS = 8;
  private static final int ROUNDS = 3;

  private final DatastoreSteps steps;
  private final Datastore store;

  DatastoreRaceScenarios(DatastoreSteps steps) {
    this.steps = steps;
    this.store = steps.store();
  }

  void write_mustNotExistRace_exactlyOneWinner() {
    for (int round = 0; round < ROUNDS; round++) {
      ObjectKey key = key(".datastore.lock." + round);
      List<WriteResult> results = ContractRace.run(RACERS, i -> store.write(
          key, body("holder-" + i), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY));

      int winner = onlyWinner(results, "create-only round " + round);
      ObjectVersion version = ((WriteResult.Written) results.get(winner)).version();
      steps.assertHolds(key, "holder-" + winner, version);
    }
  }

  void write_mustMatchRace_exactlyOneWinner() {
    ObjectKey key = key("config/upstream_extensions.json");
    ObjectVersion version = steps.create(key, "start");
    for (int round = 0; round < ROUNDS; round++) {
      ObjectVersion expected = version;
      String prefix = "round-" + round + "-writer-";
      List<WriteResult> results = ContractRace.run(RACERS, i -> store.write(
          key, body(prefix + i), WriteCondition.mustMatch(expected), ObjectMetadata.EMPTY));

      int winner = onlyWinner(results, "compare-and-swap round " + round);
      version = ((WriteResult.Written) results.get(winner)).version();
      steps.assertHolds(key, prefix + winner, version);
    }
  }

  void delete_mustMatchRace_exactlyOneWinner() {
    ObjectKey key = key(".datastore.lock");
    if (!steps.has(DatastoreFeature.CONDITIONAL_DELETE)) {
      ObjectVersion version = steps.create(key, "held");
      steps.assertConditionalDeleteRefused(key, version);
      steps.assertHolds(key, "held", version);
      return;
    }
    for (int round = 0; round < ROUNDS; round++) {
      ObjectVersion version = steps.create(key, "held in round " + round);
      List<DeleteResult> results = ContractRace.run(RACERS,
          i -> store.delete(key, WriteCondition.mustMatch(version)));

      assertThat(results).as("round %s", round).filteredOn(r -> r == DeleteResult.DELETED).hasSize(1);
      assertThat(results).as("round %s", round)
          .allMatch(r -> r == DeleteResult.DELETED || r == DeleteResult.PRECONDITION_FAILED || r == DeleteResult.ABSENT);
      steps.assertAbsent(key);
    }
  }

  private static int onlyWinner(List<WriteResult> results, String what) {
    List<Integer> winners = IntStream.range(0, results.size())
        .filter(i -> results.get(i) instanceof WriteResult.Written).boxed().toList();
    assertThat(winners).as("winners of %s: %s", what, results).hasSize(1);
    assertThat(results).as("losers of %s", what)
        .filteredOn(r -> !(r instanceof WriteResult.Written))
        .containsOnly(WriteResult.PreconditionFailed.INSTANCE);
    return winners.get(0);
  }
}
