package dev.tierlock.datastore.fs;

import dev.tierlock.Sleeper;
import java.time.Clock;
import java.time.Duration;

/**
 * Settings of a {@link FileSystemDatastore}: how long a write or delete waits for the per-key lock
 * before it gives up, and the clock and sleeper that wait is measured and spent with (injected, so
 * tests advance a clock instead of sleeping). Immutable and thread-safe.
 *
 * @param lockTimeout how long a write or delete waits for the key's lock; past it the call throws
 *     {@link dev.tierlock.spi.DatastoreBusyException} naming the holder and changes nothing
 * @param clock measures the wait, and spaces the sweeps of stale temp files
 * @param sleeper spends the pauses between lock attempts
 */
public record FileSystemDatastoreOptions(Duration lockTimeout, Clock clock, Sleeper sleeper) {

  /** The default lock timeout: 10 seconds. */
  public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Validates the settings.
   *
   * @param lockTimeout how long a write or delete waits for the key's lock; past it the call throws
   *     {@link dev.tierlock.spi.DatastoreBusyException} naming the holder and changes nothing
   * @param clock measures the wait, and spaces the sweeps of stale temp files
   * @param sleeper spends the pauses between lock attempts
   * @throws IllegalArgumentException if {@code lockTimeout} is negative
   */
  public FileSystemDatastoreOptions {
    if (lockTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "Cannot use filesystem datastore options: lockTimeout is negative: " + lockTimeout);
    }
  }

  /** {@return the defaults: a 10 second lock timeout, the system clock (UTC) and real sleeping} */
  public static FileSystemDatastoreOptions defaults() {
    return new FileSystemDatastoreOptions(DEFAULT_LOCK_TIMEOUT, Clock.systemUTC(), Sleeper.SYSTEM);
  }

  /**
   * {@return these settings with another lock timeout; zero means a single attempt}
   *
   * @param value the lock timeout, not negative
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public FileSystemDatastoreOptions withLockTimeout(Duration value) {
    return new FileSystemDatastoreOptions(value, clock, sleeper);
  }

  /**
   * {@return these settings with another clock}
   *
   * @param value the clock
   */
  public FileSystemDatastoreOptions withClock(Clock value) {
    return new FileSystemDatastoreOptions(lockTimeout, value, sleeper);
  }

  /**
   * {@return these settings with another sleeper}
   *
   * @param value the sleeper
   */
  public FileSystemDatastoreOptions withSleeper(Sleeper value) {
    return new FileSystemDatastoreOptions(lockTimeout, clock, value);
  }
}
