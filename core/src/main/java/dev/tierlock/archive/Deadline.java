package dev.tierlock.archive;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The end of one read: checked before every buffer against an injected clock, together with the
 * thread's interrupt flag. Immutable.
 */
final class Deadline implements VerifyingCopy.Checkpoint {

  private final Clock clock;
  private final Instant end;
  private final Duration timeout;
  private final ExtensionArchiveKey key;

  private Deadline(Clock clock, Instant end, Duration timeout, ExtensionArchiveKey key) {
    this.clock = clock;
    this.end = end;
    this.timeout = timeout;
    this.key = key;
  }

  /** Returns the deadline {@code timeout} from now on {@code clock}. */
  static Deadline after(Clock clock, Duration timeout, ExtensionArchiveKey key) {
    Instant now = clock.instant();
    Instant end;
    try {
      end = now.plus(timeout);
    } catch (ArithmeticException | java.time.DateTimeException e) {
      end = Instant.MAX;
    }
    return new Deadline(clock, end, timeout, key);
  }

  /**
   * Throws when the thread was interrupted or the deadline passed.
   *
   * @throws ArchiveCancelledException if the thread was interrupted (the flag stays set)
   * @throws ArchiveTimeoutException if the clock is past the deadline
   */
  @Override
  public void check() {
    if (Thread.currentThread().isInterrupted()) {
      throw new ArchiveCancelledException(key.toString(), "read", null);
    }
    if (clock.instant().isAfter(end)) {
      throw new ArchiveTimeoutException(key, timeout);
    }
  }
}
