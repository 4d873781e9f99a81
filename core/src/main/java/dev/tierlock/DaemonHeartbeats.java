package dev.tierlock;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Heartbeats} on daemon threads: one single-thread scheduler per heartbeat, shut down when the
 * heartbeat is cancelled, so nothing outlives the lease it keeps alive.
 */
final class DaemonHeartbeats implements Heartbeats {

  static final DaemonHeartbeats INSTANCE = new DaemonHeartbeats();

  private static final Logger LOG = LoggerFactory.getLogger(DaemonHeartbeats.class);

  private DaemonHeartbeats() {}

  @Override
  public Scheduled schedule(String name, Duration interval, Runnable beat) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("Cannot schedule heartbeat of " + name + ": interval must be positive, got " + interval);
    }
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "tierlock-heartbeat " + name);
      thread.setDaemon(true);
      return thread;
    });
    executor.setRemoveOnCancelPolicy(true);
    long nanos = interval.toNanos();
    executor.scheduleWithFixedDelay(() -> {
      try {
        beat.run();
      } catch (RuntimeException | Error e) {
        // a periodic task that throws is never run again, silently: the lease would expire unnoticed
        LOG.warn("Heartbeat of {} failed; it runs again in {}", name, interval, e);
      }
    }, nanos, nanos, TimeUnit.NANOSECONDS);
    return executor::shutdown;
  }
}
