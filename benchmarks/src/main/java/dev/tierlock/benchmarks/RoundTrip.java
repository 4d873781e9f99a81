package dev.tierlock.benchmarks;

import dev.tierlock.Lockfile;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.WriteCondition;
import java.util.Arrays;

/**
 * Measures a store's round trip as a commit's calls see it: half the median time of a GET and an
 * unconditional PUT of a small lockfile through the SPI (nothing else in between), after a second of
 * unmeasured ones (the client's code paths warm up slowly). A probe of one call kind alone misleads:
 * S3Proxy answers a HEAD or a one-byte GET slower than a commit's own calls.
 */
final class RoundTrip {

  private static final long WARM_NANOS = 1_000_000_000L;
  private static final int MEASURED = 25;

  private RoundTrip() {}

  /** Returns the round trip of {@code store} (fresh) in milliseconds. */
  static double millis(Datastore store) {
    ObjectKey key = Namespace.NONE.key(TierPath.LOCKFILE);
    byte[] bytes = Fixtures.lockfile(1).bytes();
    long warmUntil = System.nanoTime() + WARM_NANOS;
    for (int i = 0; i < 5 || System.nanoTime() < warmUntil; i++) {
      pair(store, key, bytes);
    }
    long[] nanos = new long[MEASURED];
    for (int i = 0; i < MEASURED; i++) {
      long t0 = System.nanoTime();
      pair(store, key, bytes);
      nanos[i] = System.nanoTime() - t0;
    }
    Arrays.sort(nanos);
    return nanos[MEASURED / 2] / 2 / 1e6;
  }

  private static void pair(Datastore store, ObjectKey key, byte[] bytes) {
    store.write(key, ObjectBody.of(bytes), WriteCondition.none(), ObjectMetadata.EMPTY);
    store.read(key, ReadCondition.always(), Lockfile.MAX_BYTES);
  }
}
