package dev.tierlock.internal;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How an attempt at a lock file ended: contention and re-entry are values, I/O failures are
 * exceptions.
 */
public sealed interface LockAttempt permits LockAttempt.Acquired, LockAttempt.Busy, LockAttempt.Reentered {

  /**
   * The caller holds the lock.
   *
   * @param lock the held lock; release it
   */
  record Acquired(HeldFileLock lock) implements LockAttempt {}

  /** Another holder (a thread of this JVM or another process) kept the lock until the deadline. */
  final class Busy implements LockAttempt {
    private final @Nullable LockHolder holder;
    private final Duration waited;

    Busy(@Nullable LockHolder holder, Duration waited) {
      this.holder = holder;
      this.waited = waited;
    }

    /** {@return the holder as the lock file (or this JVM's holder) told it, if known} */
    public Optional<LockHolder> holder() {
      return Optional.ofNullable(holder);
    }

    /** {@return how long the caller waited, on its clock} */
    public Duration waited() {
      return waited;
    }

    @Override
    public String toString() {
      return "Busy[" + (holder == null ? "unknown holder" : holder.describe()) + ", waited " + waited + "]";
    }
  }

  /**
   * The calling thread already holds this lock file through this registry; nothing was taken or
   * changed. The caller decides what that is (a nested transaction, a programming error).
   */
  record Reentered() implements LockAttempt {}
}
