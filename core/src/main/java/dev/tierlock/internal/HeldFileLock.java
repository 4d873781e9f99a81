package dev.tierlock.internal;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A lock file held through an {@link OsLockRegistry}: this JVM's turn on it and, unless its file
 * system cannot lock, the OS lock. Release it exactly once (later calls do nothing), on any thread.
 * Thread-safe.
 */
public final class HeldFileLock {

  private final OsLockRegistry registry;
  private final LockSlot slot;
  private final TurnQueue.Turn turn;
  private final LockHolder holder;
  private final boolean excludesProcesses;
  private boolean released;

  HeldFileLock(OsLockRegistry registry, LockSlot slot, TurnQueue.Turn turn, LockHolder holder, boolean excludesProcesses) {
    this.registry = registry;
    this.slot = slot;
    this.turn = turn;
    this.holder = holder;
    this.excludesProcesses = excludesProcesses;
  }

  /** {@return the canonical lock file} */
  public Path lockFile() {
    return slot.file();
  }

  /** {@return who holds it, as written into the lock file} */
  public LockHolder holder() {
    return holder;
  }

  /**
   * {@return whether the lock also excludes other processes: false when the file system provider
   * cannot lock files, so that only this JVM's turn was taken}
   */
  public boolean excludesProcesses() {
    return excludesProcesses;
  }

  /** {@return whether {@link #release()} was called} */
  public synchronized boolean isReleased() {
    return released;
  }

  /**
   * Empties the lock file, releases the OS lock (closing the channel when nobody else in this
   * registry uses it) and hands this JVM's turn to the next waiter. The OS lock and the turn are free
   * afterwards even when this throws. Idempotent.
   *
   * @throws IOException if emptying the file or unlocking it failed (then the channel was closed,
   *     which released the lock)
   */
  public synchronized void release() throws IOException {
    if (released) {
      return;
    }
    released = true;
    registry.release(slot, turn);
  }

  @Override
  public String toString() {
    return "HeldFileLock[" + slot.file() + (isReleased() ? ", released" : "") + "]";
  }
}
