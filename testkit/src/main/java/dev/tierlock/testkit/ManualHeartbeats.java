package dev.tierlock.testkit;

import dev.tierlock.Heartbeats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link Heartbeats} that beat only when a test says so: {@link #beat()} runs every scheduled
 * heartbeat once, on the calling thread. With a {@link TestClock}, a test moves time and beats by
 * hand, so that a lease's life needs no real waiting. Thread-safe.
 */
public final class ManualHeartbeats implements Heartbeats {

  private final List<Entry> scheduled = new ArrayList<>();

  private ManualHeartbeats() {}

  /** {@return heartbeats with nothing scheduled} */
  public static ManualHeartbeats create() {
    return new ManualHeartbeats();
  }

  private record Entry(String name, Duration interval, Runnable beat) {}

  @Override
  public Scheduled schedule(String name, Duration interval, Runnable beat) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("Cannot schedule heartbeat of " + name + ": interval must be positive, got " + interval);
    }
    Entry entry = new Entry(name, interval, beat);
    synchronized (scheduled) {
      scheduled.add(entry);
    }
    return () -> {
      synchronized (scheduled) {
        scheduled.remove(entry);
      }
    };
  }

  /**
   * Runs every heartbeat scheduled now once, in the order they were scheduled, on this thread. A
   * heartbeat cancelled by an earlier one in the same round still runs (the lease ignores it).
   *
   * @return how many heartbeats ran
   */
  public int beat() {
    List<Entry> now;
    synchronized (scheduled) {
      now = List.copyOf(scheduled);
    }
    now.forEach(e -> e.beat().run());
    return now.size();
  }

  /** {@return how many heartbeats are scheduled (not yet cancelled)} */
  public int running() {
    synchronized (scheduled) {
      return scheduled.size();
    }
  }

  /** {@return the intervals of the scheduled heartbeats, in the order they were scheduled} */
  public List<Duration> intervals() {
    synchronized (scheduled) {
      return scheduled.stream().map(Entry::interval).toList();
    }
  }
}
