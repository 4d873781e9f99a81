package dev.tierlock.install;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link ConvergePoller} polls: every {@link #interval()} (default 30 s, at least 1 s), and
 * whom it tells to reload. Immutable; build with {@link #builder(Reload)}.
 */
public final class PollerOptions {

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
     *     PollerOptions#MAX_FAILED_RELOADS} times for one lockfile version
     */
    void reload(ConvergeReport report) throws Exception;
  }

  private final Duration interval;
  private final Duration closeWait;
  private final Reload reload;

  private PollerOptions(Builder b) {
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

  /** Builds {@link PollerOptions}. Not thread-safe. */
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
        throw new IllegalArgumentException("Cannot poll every " + value + ": the interval is at least " + MIN_INTERVAL);
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
    public PollerOptions build() {
      return new PollerOptions(this);
    }
  }
}
