package dev.tierlock.archive;

import java.time.Clock;
import java.time.Duration;

/**
 * The checkpoint of one archive read: its {@link dev.tierlock.internal.Deadline} and the thread's
 * interrupt flag, checked before every buffer. Immutable.
 */
final class ReadCheckpoint implements VerifyingCopy.Checkpoint {

  private final dev.tierlock.internal.Deadline deadline;
  private final Duration timeout;
  private final ExtensionArchiveKey key;

  private ReadCheckpoint(dev.tierlock.internal.Deadline deadline, Duration timeout, ExtensionArchiveKey key) {
    this.deadline = deadline;
    this.timeout = timeout;
    this.key = key;
  }

  /** Returns the deadline {@code timeout} from now on {@code clock}. */
  static ReadCheckpoint after(Clock clock, Duration timeout, ExtensionArchiveKey key) {
    return new ReadCheckpoint(dev.tierlock.internal.Deadline.after(clock, timeout), timeout, key);
  }

  /**
   * Throws when the thread was interrupted or the deadline passed.
   *
   * @throws ArchiveException ({@code archive_cancelled}) if the thread was interrupted (the flag stays set)
   * @throws ArchiveException ({@code archive_timeout}) if the clock is past the deadline
   */
  @Override
  public void check() {
    if (Thread.currentThread().isInterrupted()) {
      throw ArchiveException.cancelled(key.toString(), "read", null);
    }
    if (deadline.clock().instant().isAfter(deadline.end())) {
      throw ArchiveException.timeout(key, timeout);
    }
  }
}
