package dev.tierlock.benchmarks;

import java.time.Duration;
import java.util.List;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * How long each part of the report measures: the full plan fits the whole command (build included)
 * in under ten minutes on two cores; {@code --quick} is for trying the command out.
 *
 * @param name {@code full} or {@code quick}
 * @param writers the writer counts of the fake remote and the filesystem datastore
 * @param fake each run on the fake remote with latency
 * @param longWindow the one long run of 16 separate locked checkouts
 * @param cloudWriters the writer counts on S3 and GCS
 * @param s3 each run on S3
 * @param gcs each run on GCS (longer: a write a second per object)
 * @param fs each run on the filesystem datastore
 * @param jmh each JMH benchmark
 * @param startRounds how many times each start-up case runs
 */
record Plan(String name, List<Integer> writers, ContendedRun.Timing fake, Duration longWindow,
    List<Integer> cloudWriters, ContendedRun.Timing s3, ContendedRun.Timing gcs, ContendedRun.Timing fs,
    JmhSection.Timing jmh, int startRounds) {

  /** The lockfile size of the codec and put benchmarks. */
  static final int LARGE = 5000;

  private static final Duration GRACE = Duration.ofSeconds(2);

  /** Returns the plan of the committed report. */
  static Plan full() {
    return new Plan("full", List.of(1, 2, 4, 8, 16),
        timing(500, 2000), Duration.ofSeconds(60),
        List.of(1, 16), timing(500, 2000), timing(500, 4000), timing(300, 1500),
        new JmhSection.Timing(3, 3, TimeValue.seconds(1)), 21);
  }

  /** Returns the short plan of {@code --quick}. */
  static Plan quick() {
    return new Plan("quick", List.of(1, 4, 16),
        timing(200, 1000), Duration.ofSeconds(5),
        List.of(1, 16), timing(200, 1000), timing(500, 2000), timing(200, 1000),
        new JmhSection.Timing(1, 2, TimeValue.milliseconds(500)), 5);
  }

  private static ContendedRun.Timing timing(long warmupMillis, long windowMillis) {
    return new ContendedRun.Timing(Duration.ofMillis(warmupMillis), Duration.ofMillis(windowMillis), GRACE);
  }
}
