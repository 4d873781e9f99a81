package dev.tierlock.benchmarks;

import java.util.List;
import java.util.Optional;

/**
 * The contended runs on one kind of store.
 *
 * @param label what the report calls the store
 * @param slug its short name, for file names
 * @param roundTripMillis its measured round trip, in the same run
 * @param window the measured window of each run, in seconds
 * @param results every run, by protocol then writers
 * @param limit a throughput level the store itself imposes, if any
 */
record StoreRuns(String label, String slug, double roundTripMillis, double window, List<RunResult> results,
    Optional<LineChart.Level> limit) {

  /** Returns the run of {@code protocol} with {@code writers} writers, if it was made. */
  Optional<RunResult> find(Protocol protocol, int writers) {
    return results.stream().filter(r -> r.protocol() == protocol && r.writers() == writers).findFirst();
  }

  /** Returns 1/(4 RTT) in commits per second: four round trips a commit, one commit at a time. */
  double lockedCeiling() {
    return 1000.0 / (4 * roundTripMillis);
  }

  /** Returns 1/RTT in commits per second: one round trip a commit, one commit at a time. */
  double optimisticCeiling() {
    return 1000.0 / roundTripMillis;
  }
}
