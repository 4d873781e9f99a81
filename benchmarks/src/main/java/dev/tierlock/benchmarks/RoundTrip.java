package dev.tierlock.benchmarks;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.WriteCondition;
import java.util.Arrays;

/**
 * Measures a store's round trip: the median of a run of reads of one small object (a GET of one
 * byte), after a few unmeasured ones.
 */
final class RoundTrip {

  private static final int WARM = 5;
  private static final int MEASURED = 25;

  private RoundTrip() {}

  /** Returns the round trip of {@code store} in milliseconds. */
  static double millis(Datastore store) {
    ObjectKey probe = ObjectKey.of("bench-round-trip-probe");
    store.write(probe, ObjectBody.of(new byte[] {'x'}), WriteCondition.none(), ObjectMetadata.EMPTY);
    for (int i = 0; i < WARM; i++) {
      store.read(probe, ReadCondition.always(), 1024);
    }
    long[] nanos = new long[MEASURED];
    for (int i = 0; i < MEASURED; i++) {
      long t0 = System.nanoTime();
      store.read(probe, ReadCondition.always(), 1024);
      nanos[i] = System.nanoTime() - t0;
    }
    Arrays.sort(nanos);
    return nanos[MEASURED / 2] / 1e6;
  }
}
