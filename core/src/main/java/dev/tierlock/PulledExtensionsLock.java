package dev.tierlock;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Serialises every change to one checkout's pulled extensions (their files and their lockfile
 * entries), among the threads of this JVM and among processes.
 *
 * <p>Two layers, taken in this order and released in reverse: a fair (first come, first served)
 * in-JVM mutex keyed by the checkout's canonical path, so that every spelling of the path (relative,
 * absolute, through a symbolic link) and every instance of this class share it; then an exclusive OS
 * lock on {@code <state directory>/pulled-extensions.lock}, which the OS frees if the process dies.
 * One wait budget (default 180 s) covers both; a waiter that runs out of it leaves the queue without
 * disturbing those behind it and gets a {@link LockTimeoutException} naming the lock file. The lock
 * file is never deleted and lives in the state directory, outside anything that is synced.
 *
 * <p>Re-entry is explicit: {@link #acquire()} returns a {@link Section}; code that runs inside it and
 * needs the lock again calls {@link Section#nested()}, which runs inline without taking anything.
 * Acquiring again on a thread that already holds the lock is a programming error and is rejected at
 * once. The lock sits at {@link LockLevel#PULLED_EXTENSIONS}: after the global lock, before the
 * lockfile lock.
 *
 * <p>Thread-safe. Holds no state of its own besides configuration.
 */
public final class PulledExtensionsLock {

  /** The lock file's name in the state directory. */
  public static final String LOCK_FILE_NAME = "pulled-extensions.lock";

  /** The default state directory, relative to the checkout. */
  public static final String DEFAULT_STATE_DIRECTORY = ".swamp";

  /** The default wait budget. */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(180);

  /** The default interval between attempts on a busy lock file. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);

  private final Path checkout;
  private final Path lockFile;
  private final Duration maxWait;
  private final Clock clock;
  private final CheckoutLock layers;

  private PulledExtensionsLock(Builder builder, Path checkout, Path lockFile) {
    this.checkout = checkout;
    this.lockFile = lockFile;
    this.maxWait = builder.maxWait;
    this.clock = builder.clock;
    String description = describe();
    this.layers = CheckoutLock.of(lockFile, checkout, LockLevel.PULLED_EXTENSIONS, description, builder.pollInterval,
        builder.clock, builder.sleeper, builder.fileLocks, builder.onQueued,
        target -> new IllegalStateException("Cannot acquire " + description
            + ": this thread already holds it; pass the held section and call nested()"));
  }

  /**
   * Starts building the lock of the checkout at {@code checkout} (which must exist).
   *
   * @return a builder with the defaults: state directory {@code <checkout>/.swamp}, a 180 s budget,
   *     polling the lock file every 100 ms, the system UTC clock and real sleeping
   */
  public static Builder builder(Path checkout) {
    return new Builder(checkout);
  }

  /** Returns the checkout's canonical path, which keys the in-JVM layer. */
  public Path checkout() {
    return checkout;
  }

  /** Returns the lock file of the cross-process layer. */
  public Path lockFile() {
    return lockFile;
  }

  /** Returns a description for messages: the checkout and the lock file. */
  public String describe() {
    return "pulled-extensions lock of " + checkout + " (" + lockFile + ")";
  }

  /**
   * Acquires both layers, waiting up to the budget.
   *
   * @return the held section; close it to release
   * @throws LockTimeoutException if the budget ran out; names the lock file
   * @throws LockOrderException if this thread holds the lockfile lock
   * @throws IllegalStateException if this thread already holds this checkout's lock (use {@link
   *     Section#nested()})
   * @throws LocalFileException if the lock file cannot be created or locked
   * @throws InterruptedOperationException if the thread was interrupted while waiting
   */
  public Section acquire() {
    return new CheckoutSection(this, layers.acquire(clock.instant().plus(maxWait), describe()));
  }

  /**
   * Acquires both layers if both are free now, without waiting.
   *
   * @return the held section, or empty when another thread or process holds the lock
   * @throws LockOrderException if this thread holds the lockfile lock
   * @throws IllegalStateException if this thread already holds this checkout's lock
   * @throws LocalFileException if the lock file cannot be created or locked
   */
  public Optional<Section> tryAcquire() {
    return layers.tryAcquire(describe()).map(held -> new CheckoutSection(this, held));
  }

  /**
   * Runs {@code action} in a section of this lock and releases it afterwards whatever happens.
   *
   * @return what {@code action} returned
   * @throws LockTimeoutException if the budget ran out
   */
  public <T> T withLock(Function<Section, T> action) {
    try (Section section = acquire()) {
      return action.apply(section);
    }
  }

  /**
   * A held pulled-extensions lock, or a nested use of one. Closing the outermost section releases
   * the lock (idempotent); closing a nested section only ends the nesting. Thread-safe.
   */
  public interface Section extends AutoCloseable {

    /** Returns the lock this section holds. */
    PulledExtensionsLock lock();

    /**
     * Returns a nested section for code that runs inside this one: it takes nothing and closing it
     * releases nothing.
     *
     * @throws IllegalStateException if this section (or its outermost one) is closed
     * @throws LockOrderException if the calling thread holds the lockfile lock
     */
    Section nested();

    /** Returns whether this section and its outermost one are still open. */
    boolean isOpen();

    /**
     * Closes this section. For the outermost one: unlocks the lock file, then frees the in-JVM
     * mutex (which is freed even when unlocking fails). Idempotent.
     *
     * @throws LocalFileException if unlocking the lock file failed (the mutex is free nonetheless)
     */
    @Override
    void close();
  }

  /** Configures a {@link PulledExtensionsLock}. Not thread-safe. */
  public static final class Builder {

    private final Path checkoutPath;
    private @Nullable Path stateDirectory;
    private Duration maxWait = DEFAULT_MAX_WAIT;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private Clock clock = Clock.systemUTC();
    private Sleeper sleeper = Sleeper.SYSTEM;
    private FileLocks fileLocks = FileLocks.OS;
    private Runnable onQueued = () -> { };

    private Builder(Path checkout) {
      this.checkoutPath = checkout;
    }

    /**
     * Sets the state directory that holds the lock file (default {@code .swamp} in the checkout's
     * canonical path); a relative path is resolved against the working directory.
     */
    public Builder stateDirectory(Path value) {
      this.stateDirectory = value;
      return this;
    }

    /**
     * Sets the wait budget covering both layers.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder maxWait(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("Cannot use pulled-extensions lock maxWait " + value + ": it is negative");
      }
      this.maxWait = value;
      return this;
    }

    /**
     * Sets how often a busy lock file is tried again (also the longest a waiter on the in-JVM layer
     * goes without re-reading the clock).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder pollInterval(Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Cannot use pulled-extensions lock pollInterval " + value + ": it must be positive");
      }
      this.pollInterval = value;
      return this;
    }

    /** Sets the clock that measures the wait budget. */
    public Builder clock(Clock value) {
      this.clock = value;
      return this;
    }

    /** Sets how the lock waits between attempts on a busy lock file. */
    public Builder sleeper(Sleeper value) {
      this.sleeper = value;
      return this;
    }

    /** Replaces the OS layer (tests inject failures through it). */
    Builder fileLocks(FileLocks value) {
      this.fileLocks = value;
      return this;
    }

    /** Runs {@code value} on a thread each time it has to queue on the in-JVM layer. */
    Builder onQueued(Runnable value) {
      this.onQueued = value;
      return this;
    }

    /**
     * Builds the lock, resolving the checkout's canonical path.
     *
     * @throws IllegalArgumentException if the checkout does not exist or cannot be resolved
     */
    public PulledExtensionsLock build() {
      Path canonical;
      try {
        canonical = checkoutPath.toRealPath();
      } catch (NoSuchFileException e) {
        throw new IllegalArgumentException("Cannot lock checkout " + checkoutPath + ": it does not exist", e);
      } catch (IOException e) {
        throw new IllegalArgumentException("Cannot lock checkout " + checkoutPath + ": " + e.getMessage(), e);
      }
      Path state = stateDirectory == null
          ? canonical.resolve(DEFAULT_STATE_DIRECTORY)
          : stateDirectory.toAbsolutePath().normalize();
      return new PulledExtensionsLock(this, canonical, state.resolve(LOCK_FILE_NAME));
    }
  }
}
