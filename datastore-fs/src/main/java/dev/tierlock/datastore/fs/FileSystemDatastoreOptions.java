package dev.tierlock.datastore.fs;

import dev.tierlock.Sleeper;
import java.time.Clock;
import java.time.Duration;

/**
 * Settings of a {@link FileSystemDatastore}: how long a write or delete waits for the key's claim
 * before it gives up, after how long a claim that stays unchanged is taken over, and the clock and
 * sleeper those waits are measured and spent with (injected, so tests advance a clock instead of
 * sleeping). Immutable and thread-safe.
 *
 * <p>With the defaults the takeover bound (5 s) is shorter than the lock timeout (10 s), so a single
 * write gets through a claim whose writer stopped inside its write (with {@code SIGSTOP}, or hung):
 * it waits at most the takeover bound and a poll, then takes the claim over, and the stopped
 * writer's change is refused if it ever resumes. A bound longer than the lock timeout is reached
 * across calls: each instance remembers, per key, the claim it saw and since when.
 *
 * @param lockTimeout how long a write or delete waits for the key's claim; past it the call throws
 *     {@link dev.tierlock.spi.DatastoreBusyException} naming the holder and changes nothing
 * @param clock measures the waits on this process's own time (never compared with another
 *     process's), and spaces the sweeps of stale temp files
 * @param sleeper spends the pauses between attempts
 * @param takeoverAfter how long a writer must see the same claim on a key, on its own clock, before
 *     it takes the claim over; positive
 */
public record FileSystemDatastoreOptions(Duration lockTimeout, Clock clock, Sleeper sleeper, Duration takeoverAfter) {

  /** The default lock timeout: 10 seconds. */
  public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(10);

  /** The default takeover bound: 5 seconds, far longer than a write holds a claim (milliseconds). */
  public static final Duration DEFAULT_TAKEOVER_AFTER = Duration.ofSeconds(5);

  /**
   * Validates the settings.
   *
   * @param lockTimeout how long a write or delete waits for the key's claim; past it the call throws
   *     {@link dev.tierlock.spi.DatastoreBusyException} naming the holder and changes nothing
   * @param clock measures the waits, and spaces the sweeps of stale temp files
   * @param sleeper spends the pauses between attempts
   * @param takeoverAfter how long a writer must see the same claim on a key before it takes it over
   * @throws IllegalArgumentException if {@code lockTimeout} is negative or {@code takeoverAfter} is
   *     not positive
   */
  public FileSystemDatastoreOptions {
    if (lockTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "Cannot use filesystem datastore options: lockTimeout is negative: " + lockTimeout);
    }
    if (takeoverAfter.isNegative() || takeoverAfter.isZero()) {
      throw new IllegalArgumentException(
          "Cannot use filesystem datastore options: takeoverAfter is not positive: " + takeoverAfter);
    }
  }

  /**
   * Creates settings with the default takeover bound ({@link #DEFAULT_TAKEOVER_AFTER}).
   *
   * @param lockTimeout how long a write or delete waits for the key's claim
   * @param clock measures the waits, and spaces the sweeps of stale temp files
   * @param sleeper spends the pauses between attempts
   * @throws IllegalArgumentException if {@code lockTimeout} is negative
   */
  public FileSystemDatastoreOptions(Duration lockTimeout, Clock clock, Sleeper sleeper) {
    this(lockTimeout, clock, sleeper, DEFAULT_TAKEOVER_AFTER);
  }

  /**
   * {@return the defaults: a 10 second lock timeout, the system clock (UTC), real sleeping and a
   * 5 second takeover bound}
   */
  public static FileSystemDatastoreOptions defaults() {
    return new FileSystemDatastoreOptions(DEFAULT_LOCK_TIMEOUT, Clock.systemUTC(), Sleeper.SYSTEM, DEFAULT_TAKEOVER_AFTER);
  }

  /**
   * {@return these settings with another lock timeout; zero means a single attempt}
   *
   * @param value the lock timeout, not negative
   * @throws IllegalArgumentException if {@code value} is negative
   */
  public FileSystemDatastoreOptions withLockTimeout(Duration value) {
    return new FileSystemDatastoreOptions(value, clock, sleeper, takeoverAfter);
  }

  /**
   * {@return these settings with another clock}
   *
   * @param value the clock
   */
  public FileSystemDatastoreOptions withClock(Clock value) {
    return new FileSystemDatastoreOptions(lockTimeout, value, sleeper, takeoverAfter);
  }

  /**
   * {@return these settings with another sleeper}
   *
   * @param value the sleeper
   */
  public FileSystemDatastoreOptions withSleeper(Sleeper value) {
    return new FileSystemDatastoreOptions(lockTimeout, clock, value, takeoverAfter);
  }

  /**
   * {@return these settings with another takeover bound}
   *
   * @param value how long a writer must see the same claim on a key before it takes it over
   * @throws IllegalArgumentException if {@code value} is not positive
   */
  public FileSystemDatastoreOptions withTakeoverAfter(Duration value) {
    return new FileSystemDatastoreOptions(lockTimeout, clock, sleeper, value);
  }
}
