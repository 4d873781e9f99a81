package dev.tierlock.benchmarks;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.CountingDatastore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Uncontended commits spaced so that the lockfile was not written in the last second (GCS's
 * per-object write limit): one warm checkout per mode on a fresh store of a kind, {@code commits}
 * puts {@link #GAP} apart, the median latency and calls of each, and the median time of the
 * lockfile write alone inside them.
 */
final class SpacedCommits {

  /** The pause between two puts: past GCS's one write a second to one object. */
  static final Duration GAP = Duration.ofMillis(1100);

  /**
   * One mode's figures.
   *
   * @param mode the checkout's commit mode
   * @param p50Millis the median latency of a put
   * @param callsPerCommit datastore calls per put
   * @param roundTripMillis the store's round trip measured just before this mode's puts, on the same
   *     warm client (the section's own, taken at its start, is measured on a colder one)
   * @param writeP50Millis the median time of the lockfile writes inside the puts, the call alone
   */
  record Row(CommitMode mode, double p50Millis, double callsPerCommit, double roundTripMillis,
      double writeP50Millis) {}

  private SpacedCommits() {}

  /** Measures every mode of {@link Protocol#MODES} on fresh stores of {@code kind}. */
  static List<Row> measure(StoreKind kind, int commits, Path work) throws InterruptedException {
    List<Row> rows = new ArrayList<>();
    for (CommitMode mode : Protocol.MODES) {
      Path directory = work.resolve("spaced-" + mode.name().toLowerCase());
      double roundTrip;
      try (Datastore probe = kind.fresh()) {
        roundTrip = RoundTrip.millis(probe);
      }
      try (Datastore store = kind.fresh()) {
        KeyCalls keys = new KeyCalls(store);
        CountingDatastore counting = CountingDatastore.wrap(keys);
        try (Tierlock checkout = TierlockCommitter.open(counting, directory, "spaced", mode, Protocol.GroupCommit.ON)) {
          checkout.checkDatastore();
          TierlockCommitter committer = new TierlockCommitter(checkout);
          Participants.history(committer);
          kind.beginMeasuring();
          counting.reset();
          keys.reset();
          long[] latencies = new long[commits];
          for (int i = 0; i < commits; i++) {
            Thread.sleep(GAP.toMillis());
            long t0 = System.nanoTime();
            committer.put(ExtensionName.of("@spaced/name"), Fixtures.plainEntry("1.0." + i));
            latencies[i] = System.nanoTime() - t0;
          }
          java.util.Arrays.sort(latencies);
          rows.add(new Row(mode, ContendedRun.percentile(latencies, 0.5), (double) counting.total() / commits,
              roundTrip, keys.medianWriteMillis(KeyCalls.Kind.LOCKFILE)));
        } finally {
          kind.endMeasuring();
        }
      } finally {
        WorkDirectory.delete(directory);
      }
    }
    return rows;
  }
}
