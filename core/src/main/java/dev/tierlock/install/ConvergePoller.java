package dev.tierlock.install;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a long-running embedder (a server) converged: every interval it runs one gated pass (one
 * conditional read of the shared lockfile; not-modified costs no download), and calls the reload
 * callback when the lockfile changed or the restore generation moved since the baseline.
 *
 * <ul>
 *   <li>The baseline is what the state held when the poller started (the embedder converged and
 *       loaded at boot), or else what the first poll finds; it is advanced before each reload.
 *   <li>A busy pass (an install or another process holding the checkout's lock) defers every
 *       reload to the next pass that is not busy.
 *   <li>A reload that throws is tried again at the next poll, at most {@value
 *       Options#MAX_FAILED_RELOADS} times for one change; then the poller waits for the next change.
 *   <li>A poll that would overlap one in flight is skipped; {@link #close()} interrupts a poll in
 *       flight (a read included) and waits for it within {@link Options#closeWait()}.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class ConvergePoller implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ConvergePoller.class);

  /** What one {@link #poll()} did. */
  public enum PollResult {
    /** Another poll was in flight (or the poller is closed): nothing was done. */
    SKIPPED,
    /** Nothing changed since the baseline (or the pass could not read the lockfile). */
    UNCHANGED,
    /** The first poll set the baseline. */
    SEEDED,
    /** The pass was busy: any reload waits for the next pass that is not. */
    DEFERRED,
    /** The embedder was told to reload, and did. */
    RELOADED,
    /** The reload threw: tried again at the next poll, unless the cap for this change is reached. */
    RELOAD_FAILED
  }

  /**
   * How a {@link ConvergePoller} polls: every {@link #interval()} (default 30 s, at least 1 s), and
   * whom it tells to reload. Immutable; build with {@link #builder(Reload)}.
   */
  public static final class Options {

    /** The default interval between polls. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(30);

    /** The shortest interval allowed. */
    public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

    /** The most failed reloads of one lockfile version before the poller waits for the next change. */
    public static final int MAX_FAILED_RELOADS = 3;

    /** What the embedder does when the checkout's extensions changed: reload them. */
    @FunctionalInterface
    public interface Reload {
      /**
       * Reloads; called on the poller's thread once the pass that changed things has saved its state.
       *
       * @param report the pass that found the change
       * @throws Exception if the reload failed: it is tried again at the next poll, up to {@value
       *     Options#MAX_FAILED_RELOADS} times for one lockfile version
       */
      void reload(ConvergeReport report) throws Exception;
    }

    private final Duration interval;
    private final Duration closeWait;
    private final Reload reload;

    private Options(Builder b) {
      this.interval = b.interval;
      this.closeWait = b.closeWait;
      this.reload = b.reload;
    }

    /**
     * Starts options that call {@code reload} on every change.
     *
     * @param reload what reloads the embedder
     * @return a builder with the defaults
     */
    public static Builder builder(Reload reload) {
      return new Builder(reload);
    }

    /** {@return the interval between the end of one poll and the start of the next} */
    public Duration interval() {
      return interval;
    }

    /** {@return how long {@link ConvergePoller#close()} waits for a poll in flight to stop} */
    public Duration closeWait() {
      return closeWait;
    }

    /** {@return what reloads the embedder} */
    public Reload reload() {
      return reload;
    }

    /** Builds {@link Options}. Not thread-safe. */
    public static final class Builder {
      private final Reload reload;
      private Duration interval = DEFAULT_INTERVAL;
      private Duration closeWait = Duration.ofSeconds(5);

      private Builder(Reload reload) {
        this.reload = Objects.requireNonNull(reload, "reload");
      }

      /**
       * Sets the interval between polls (default 30 s).
       *
       * @param value the interval, at least 1 s
       * @return this builder
       * @throws IllegalArgumentException if below 1 s
       */
      public Builder interval(Duration value) {
        if (value.compareTo(MIN_INTERVAL) < 0) {
          throw new IllegalArgumentException("Cannot poll every " + value + ": the interval is at least "
              + MIN_INTERVAL);
        }
        this.interval = value;
        return this;
      }

      /**
       * Sets how long closing waits for a poll in flight, which it interrupts (default 5 s).
       *
       * @param value the wait, not negative
       * @return this builder
       * @throws IllegalArgumentException if negative
       */
      public Builder closeWait(Duration value) {
        if (value.isNegative()) {
          throw new IllegalArgumentException("Cannot wait " + value + " on close: not negative");
        }
        this.closeWait = value;
        return this;
      }

      /** {@return the options} */
      public Options build() {
        return new Options(this);
      }
    }
  }

  private record Baseline(Optional<String> sha256, long generation) {}

  private final Converger converger;
  private final Options options;
  private final AtomicBoolean polling = new AtomicBoolean();
  private final Object lock = new Object();
  private @Nullable ScheduledExecutorService scheduler;
  private volatile @Nullable Thread pollThread;
  private volatile boolean closed;
  private @Nullable Baseline baseline;
  private @Nullable Baseline reloadPending;
  private int failedReloads;

  ConvergePoller(Converger converger, Options options) {
    this.converger = converger;
    this.options = Objects.requireNonNull(options, "options");
    converger.loadState(new java.util.ArrayList<>())
        .filter(s -> s.base().equals(converger.base()) && s.lockfileSha256() != null)
        .ifPresent(s -> baseline = new Baseline(Optional.ofNullable(s.lockfileSha256()), s.restoreGeneration()));
  }

  /**
   * Starts polling on a daemon thread of its own: the first poll after one interval.
   *
   * @return this poller
   * @throws IllegalStateException if started already or closed
   */
  public ConvergePoller start() {
    synchronized (lock) {
      if (closed || scheduler != null) {
        throw new IllegalStateException("Cannot start " + this + ": it is " + (closed ? "closed" : "started already"));
      }
      ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tierlock-converge-poller");
        t.setDaemon(true);
        return t;
      });
      long every = options.interval().toMillis();
      s.scheduleWithFixedDelay(this::pollQuietly, every, every, TimeUnit.MILLISECONDS);
      scheduler = s;
    }
    return this;
  }

  /**
   * Polls once now, on the calling thread: one gated pass, then a reload if one is due.
   *
   * @return what it did
   */
  public PollResult poll() {
    if (closed || !polling.compareAndSet(false, true)) {
      return PollResult.SKIPPED;
    }
    pollThread = Thread.currentThread();
    try {
      ConvergeReport report = converger.converge();
      if (closed) {
        return PollResult.SKIPPED;
      }
      return settle(report);
    } finally {
      pollThread = null;
      polling.set(false);
    }
  }

  private synchronized PollResult settle(ConvergeReport report) {
    switch (report.outcome()) {
      case BUSY:
        return PollResult.DEFERRED;
      case UNAVAILABLE:
      case LOCKFILE_UNREADABLE:
      case NO_LOCKFILE:
      case BLOCKED:
        // nothing converged: the baseline stays, a reload still owed is tried again
        return reloadPending == null ? PollResult.UNCHANGED : reload(report);
      default:
        break;
    }
    Baseline now = new Baseline(report.lockfileSha256(), report.restoreGeneration());
    if (report.outcome() == ConvergeReport.Outcome.UNCHANGED && now.sha256().isEmpty()) {
      return PollResult.UNCHANGED;
    }
    if (baseline == null) {
      baseline = now;
      return PollResult.SEEDED;
    }
    if (!now.equals(baseline) || report.changedFiles()) {
      baseline = now;           // advanced before the reload: a failing reload never hides the next change
      reloadPending = now;
      failedReloads = 0;
    }
    return reloadPending == null ? PollResult.UNCHANGED : reload(report);
  }

  private PollResult reload(ConvergeReport report) {
    try {
      options.reload().reload(report);
      reloadPending = null;
      failedReloads = 0;
      return PollResult.RELOADED;
    } catch (Exception e) {
      failedReloads++;
      if (failedReloads >= Options.MAX_FAILED_RELOADS) {
        LOG.warn("Reload after a change of the shared lockfile failed {} times; waiting for the next change: {}",
            failedReloads, e.toString());
        reloadPending = null;
      } else if (failedReloads == 1) {
        LOG.warn("Reload after a change of the shared lockfile failed; trying again at the next poll: {}", e.toString());
      }
      return PollResult.RELOAD_FAILED;
    }
  }

  private void pollQuietly() {
    try {
      poll();
    } catch (RuntimeException e) {
      LOG.warn("A convergence poll failed: {}", e.toString());
    }
  }

  /**
   * Stops polling: interrupts a poll in flight (its read included) and waits for it within {@link
   * Options#closeWait()}. Idempotent.
   */
  @Override
  public void close() {
    ExecutorService s;
    synchronized (lock) {
      closed = true;
      s = scheduler;
    }
    Thread running = pollThread;
    if (running != null) {
      running.interrupt();
    }
    if (s != null) {
      s.shutdownNow();
      try {
        s.awaitTermination(options.closeWait().toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else if (running != null) {
      long deadline = System.nanoTime() + options.closeWait().toNanos();
      while (pollThread == running && System.nanoTime() < deadline) {
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
      }
    }
  }

  @Override
  public String toString() {
    return "ConvergePoller[" + converger + ", every " + options.interval() + "]";
  }
}
