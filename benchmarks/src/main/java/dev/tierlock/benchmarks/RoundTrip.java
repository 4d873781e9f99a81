package dev.tierlock.benchmarks;

import dev.tierlock.ExtensionName;
import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Measures a store's round trip as a commit's calls see it: half the median time of a GET and an
 * unconditional PUT of a small lockfile (the no-lock protocol, one writer, nobody else), after a
 * second of unmeasured ones (the client's code paths warm up slowly). A probe of one call kind alone misleads: S3Proxy answers a HEAD or a one-byte GET
 * slower than a commit's own calls.
 */
final class RoundTrip {

  private static final long WARM_NANOS = 1_000_000_000L;
  private static final int MEASURED = 25;

  private RoundTrip() {}

  /** Returns the round trip of {@code store} (fresh) in milliseconds; the probe's checkout goes in {@code directory}. */
  static double millis(Datastore store, Path directory) {
    Committer probe = UploadProtocol.noLock(store, directory);
    ExtensionName name = ExtensionName.of("@bench/round-trip");
    long warmUntil = System.nanoTime() + WARM_NANOS;
    for (int i = 0; i < 5 || System.nanoTime() < warmUntil; i++) {
      probe.put(name, Fixtures.plainEntry("0.0." + i));
    }
    long[] nanos = new long[MEASURED];
    for (int i = 0; i < MEASURED; i++) {
      long t0 = System.nanoTime();
      probe.put(name, Fixtures.plainEntry("1.0." + i));
      nanos[i] = System.nanoTime() - t0;
    }
    Arrays.sort(nanos);
    return nanos[MEASURED / 2] / 2 / 1e6;
  }
}
