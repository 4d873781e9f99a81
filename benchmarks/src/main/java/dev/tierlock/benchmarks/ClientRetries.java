package dev.tierlock.benchmarks;

import dev.tierlock.Sleeper;
import dev.tierlock.spi.DatastoreUnavailableException;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The retries the original tool's cloud SDKs make of a call the store refused for a passing reason
 * (GCS's 429 past its write rate, a 503): up to six attempts, waiting 50 ms, doubling to 1 s, as
 * the benchmark's own GCS client does. Tierlock's datastores turn those retries off for
 * conditional writes and retry in core instead; the upload protocols get them here.
 */
final class ClientRetries {

  private static final int ATTEMPTS = 6;
  private static final Duration FIRST = Duration.ofMillis(50);
  private static final Duration LONGEST = Duration.ofSeconds(1);

  private ClientRetries() {}

  /** Returns what {@code call} returns, retrying it while the store is unavailable. */
  static <T> T call(Supplier<T> call) {
    Duration wait = FIRST;
    for (int attempt = 1; ; attempt++) {
      try {
        return call.get();
      } catch (DatastoreUnavailableException e) {
        if (attempt == ATTEMPTS) {
          throw e;
        }
        try {
          Sleeper.SYSTEM.sleep(wait);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
        wait = wait.multipliedBy(2).compareTo(LONGEST) > 0 ? LONGEST : wait.multipliedBy(2);
      }
    }
  }
}
