package dev.tierlock.benchmarks;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one run of the benchmark measured, for the report. A part left out ({@code --only})
 * is empty.
 *
 * @param machine what it ran on
 * @param plan how long each part measured
 * @param calls section 1, by case, in {@link CallCounts#COLUMNS} order
 * @param fake section 2: the fake remote with latency
 * @param longRuns section 2: the long runs of 16 separate checkouts, one per commit mode
 * @param s3 section 3: S3
 * @param gcs section 3: GCS
 * @param gcsSelfCheck section 3: how a self-check ends under GCS's write limit
 * @param fs section 4: the filesystem datastore
 * @param codec section 5: the codec benchmarks
 * @param codecBytes the size of the codec's lockfile
 * @param jacksonIdentical whether Jackson's write gave exactly Tierlock's bytes
 * @param puts section 5: the end-to-end puts
 * @param local section 5: local bytes per put
 * @param startup section 6: the start-up of the command line
 * @param scale sections 8 to 10 and the spaced GCS commits
 * @param seconds how long the run took
 * @param endLoad the load averages when the run ended
 */
record Measurements(Machine machine, Plan plan, Map<CallCounts.Case, List<CallCounts.Count>> calls,
    Optional<StoreRuns> fake, List<RunResult> longRuns, Optional<StoreRuns> s3, Optional<StoreRuns> gcs, Optional<String> gcsSelfCheck,
    Optional<StoreRuns> fs, List<JmhScore> codec, int codecBytes, boolean jacksonIdentical, List<JmhScore> puts,
    List<LocalWrites.Measurement> local, Optional<StartupSection.Result> startup, Scale scale, long seconds, String endLoad) {

  /** Returns the long run of {@code protocol}, if one was made. */
  Optional<RunResult> longRun(Protocol protocol) {
    return longRuns.stream().filter(r -> r.protocol() == protocol).findFirst();
  }


  /**
   * The parts the performance issue added.
   *
   * @param durable section 8: fsyncs, renames, unlinks and lease hold per commit on the filesystem datastore
   * @param pinned section 9: warm installs that pin an archive, per mode
   * @param converge section 10: convergence at each size
   * @param convergeLatency the latency added to every call in section 10
   * @param gcsSpaced uncontended GCS commits spaced past its write limit, per mode
   */
  record Scale(Optional<DurableWork.Result> durable, List<PinnedInstalls.Row> pinned, List<ConvergeScale.Row> converge,
      java.time.Duration convergeLatency, List<SpacedCommits.Row> gcsSpaced) {}


  /** Returns the score of {@code method} whose parameters include every one of {@code params}. */
  static Optional<JmhScore> score(List<JmhScore> scores, String method, Map<String, String> params) {
    return scores.stream()
        .filter(s -> s.method().equals(method) && s.params().entrySet().containsAll(params.entrySet()))
        .findFirst();
  }
}
