package dev.tierlock.benchmarks;

import java.time.Duration;
import java.util.List;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * How long each part of the report measures: the full plan fits the whole command (build included)
 * in about fifteen minutes on two cores; {@code --quick} is for trying the command out.
 *
 * @param name {@code full} or {@code quick}
 * @param writers the writer counts of the fake remote and the filesystem datastore
 * @param fake each run on the fake remote with latency
 * @param longWindow the long runs of 16 separate checkouts, one per commit mode
 * @param cloudWriters the writer counts on S3 and GCS
 * @param s3 each run on S3
 * @param gcs each run on GCS (longer: a write a second per object)
 * @param fs each run on the filesystem datastore
 * @param jmh each JMH benchmark
 * @param startRounds how many times each start-up case runs
 * @param durableCommits the puts strace counts per protocol (and the lease holds timed)
 * @param spacedCommits the spaced GCS puts per mode
 * @param converge the convergence sizes, each with its bound (1,000 three times one restore at a time and three
 *     times by default, alternating, then 5,000 and 50,000 in the full plan; the quick plan stays with 200 and
 *     5,000, since planting 50,000 archives alone takes a minute or more)
 */
record Plan(String name, List<Integer> writers, ContendedRun.Timing fake, Duration longWindow,
    List<Integer> cloudWriters, ContendedRun.Timing s3, ContendedRun.Timing gcs, ContendedRun.Timing fs,
    JmhSection.Timing jmh, int startRounds, int durableCommits, int spacedCommits, List<Converge> converge) {

  /**
   * One convergence run: its entries, how long its first pass is given, and how many restores it
   * prepares at once (0: the {@code Converger}'s default for the machine and the store; 1: one at a
   * time, the sequential reference).
   */
  record Converge(int entries, Duration bound, int restores) {}

  /** The lockfile size of the codec and put benchmarks. */
  static final int LARGE = 5000;

  private static final Duration GRACE = Duration.ofSeconds(2);

  /** Returns the plan of the committed report. */
  static Plan full() {
    return new Plan("full", List.of(1, 2, 4, 8, 16),
        timing(500, 2000), Duration.ofSeconds(60),
        List.of(1, 16), timing(500, 2000), timing(500, 4000), timing(300, 1500),
        new JmhSection.Timing(3, 3, TimeValue.seconds(1)), 21, 50, 11,
        converge(1000, Duration.ofSeconds(120), 3, List.of(new Converge(5000, Duration.ofSeconds(120), 0),
            new Converge(50_000, Duration.ofSeconds(1200), 0))));
  }

  /** Returns the short plan of {@code --quick}. */
  static Plan quick() {
    return new Plan("quick", List.of(1, 16),
        timing(100, 600), Duration.ofSeconds(3),
        List.of(1, 16), timing(100, 600), timing(300, 1500), timing(100, 600),
        new JmhSection.Timing(1, 2, TimeValue.milliseconds(300)), 3, 10, 2,
        List.of(new Converge(200, Duration.ofSeconds(20), 1), new Converge(200, Duration.ofSeconds(20), 0),
            new Converge(5000, Duration.ofSeconds(10), 0)));
  }

  /**
   * Returns {@code rounds} sequential passes of {@code entries} and as many default ones, alternating
   * (each on a fresh checkout: the target compares their medians, so that a slow spell of the disk
   * does not fall on one kind alone), then {@code then}.
   */
  private static List<Converge> converge(int entries, Duration bound, int rounds, List<Converge> then) {
    List<Converge> sizes = new java.util.ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      sizes.add(new Converge(entries, bound, 1));
      sizes.add(new Converge(entries, bound, 0));
    }
    sizes.addAll(then);
    return List.copyOf(sizes);
  }

  private static ContendedRun.Timing timing(long warmupMillis, long windowMillis) {
    return new ContendedRun.Timing(Duration.ofMillis(warmupMillis), Duration.ofMillis(windowMillis), GRACE);
  }
}
