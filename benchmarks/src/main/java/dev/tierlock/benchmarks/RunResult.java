package dev.tierlock.benchmarks;

import java.util.Map;

/**
 * What one contended run measured.
 *
 * @param protocol how the writers committed
 * @param writers how many wrote at once
 * @param seconds the measured window
 * @param commits acknowledged commits that ended inside the window
 * @param commitsPerSecond {@code commits / seconds}
 * @param p50Millis median latency of the commits started inside the window
 * @param p99Millis 99th percentile latency of the commits started inside the window
 * @param minPerWriter the fewest commits one writer had acknowledged inside the window
 * @param meanPerWriter commits per writer inside the window
 * @param errors failed commits over the whole run, by exception code
 * @param acknowledged acknowledged commits over the whole run (warm-up and tail included)
 * @param lost acknowledged changes missing from the final lockfile
 * @param releasesRefused lease releases the store refused during the run (each lease then lingers until its ttl)
 * @param hung writers that never returned from their last commit, even interrupted
 * @param calls datastore calls the writers made over the whole run (warm-up and tail included, self-checks not)
 * @param keys the same calls by the object they name ({@link KeyCalls})
 */
record RunResult(Protocol protocol, int writers, double seconds, int commits,
    double commitsPerSecond, double p50Millis, double p99Millis, int minPerWriter, double meanPerWriter,
    Map<String, Integer> errors, int acknowledged, int lost, int releasesRefused, int hung, long calls,
    KeyCalls.Counts keys) {

  /** Returns the datastore calls per acknowledged commit over the whole run (NaN when none was acknowledged). */
  double callsPerCommit() {
    return acknowledged == 0 ? Double.NaN : (double) calls / acknowledged;
  }

  /** Returns p99 over p50 (NaN when there was no latency). */
  double tailRatio() {
    return p99Millis / p50Millis;
  }


  /** Returns the total number of failed commits. */
  int errorCount() {
    return errors.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** Returns a one-line summary for the progress output. */
  String summary() {
    return String.format("%s x%d: %.1f commits/s, p50 %.0f ms, p99 %.0f ms, per writer min %d mean %.1f, errors %s, "
        + "%.1f calls/commit, lost %d/%d%s", protocol.label(), writers, commitsPerSecond, p50Millis, p99Millis,
        minPerWriter, meanPerWriter, errors, callsPerCommit(), lost, acknowledged, releasesRefused > 0 ? ", lease releases refused " + releasesRefused : "")
        + (hung > 0 ? ", HUNG writers " + hung : "")
        + (acknowledged > 0 && keys.total() > 0 ? " (per commit: " + keys.describe(acknowledged) + ")" : "");
  }
}
