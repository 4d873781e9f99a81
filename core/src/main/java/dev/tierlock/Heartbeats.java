package dev.tierlock;

import java.time.Duration;

/**
 * Runs the periodic heartbeats of held leases. A lease lock schedules one heartbeat per held lease
 * when it is acquired and cancels it when the lease is released or lost. The default, {@link
 * #daemonThreads()}, runs each on its own daemon thread; tests pass an implementation that runs the
 * beats by hand, so that no test waits for real time. Implementations are thread-safe.
 */
public interface Heartbeats {

  /**
   * Starts running {@code beat} every {@code interval}, the first time one {@code interval} from
   * now, until the returned handle is closed. {@code beat} never throws (it handles its own
   * failures) and is thread-safe, so it may also be run by a caller directly.
   *
   * @param name what the heartbeat keeps alive, for thread names and logs
   * @param interval the time between beats; positive
   * @param beat what to run
   * @return the handle that stops the beats
   * @throws IllegalArgumentException if {@code interval} is not positive
   */
  Scheduled schedule(String name, Duration interval, Runnable beat);

  /**
   * {@return the default: each heartbeat on its own daemon thread, timed by the system's monotonic
   * clock; the thread ends when the heartbeat is cancelled}
   */
  static Heartbeats daemonThreads() {
    return DaemonHeartbeats.INSTANCE;
  }

  /** A running heartbeat. Thread-safe. */
  interface Scheduled extends AutoCloseable {

    /**
     * Stops the beats; a beat already running finishes. Idempotent; never throws.
     */
    @Override
    void close();
  }
}
