package dev.tierlock;

import dev.tierlock.internal.OsLockRegistry;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Serialises every change to one checkout's pulled extensions (their files and their lockfile
 * entries), among the threads of this JVM and among processes.
 *
 * <p>A {@link CheckoutLock} on {@code <state directory>/pulled-extensions.lock}: a fair (first come,
 * first served) in-JVM queue in front of an exclusive OS lock, both keyed by the canonical lock file,
 * so that every spelling of the path (relative, absolute, through a symbolic link), every instance of
 * this class and every checkout sharing the state directory share it; the OS frees the lock if the
 * process dies. One wait budget (default 180 s) covers both; a waiter that runs out of it leaves the
 * queue without disturbing those behind it and gets a {@link LockTimeoutException} naming the lock
 * file and its holder (pid, host, since when). The lock file is never deleted and lives in the state
 * directory, outside anything that is synced.
 *
 * <p>Re-entry is explicit: {@link #acquire()} returns a {@link Held}; code that runs inside it and
 * needs the lock again calls {@link Held#nested()}, which runs inline without taking anything.
 * Acquiring again on a thread that already holds the lock is a programming error and is rejected at
 * once. The lock sits at {@link LockLevel#PULLED_EXTENSIONS}, innermost: after the global lock and
 * the checkout's transaction lock.
 *
 * <p>Thread-safe. Holds no state of its own besides configuration.
 */
final class PulledExtensionsLock {

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
  private final CheckoutLock checkoutLock;

  private PulledExtensionsLock(Builder builder, Path checkout, Path lockFile) {
    this.checkout = checkout;
    this.lockFile = lockFile;
    this.maxWait = builder.maxWait;
    this.clock = builder.clock;
    String description = describe();
    this.checkoutLock = CheckoutLock.of(lockFile, LockLevel.PULLED_EXTENSIONS, description, builder.pollInterval,
        builder.clock, builder.sleeper, builder.registry, told(builder.onQueued, builder.queueing, description),
        target -> new IllegalStateException("Cannot acquire " + description
            + ": this thread already holds it; pass the held section and call nested()"));
  }

  /** Returns what runs {@code onQueued}, then tells {@code queueing} the lock's {@code description}. */
  private static Runnable told(Runnable onQueued, Consumer<String> queueing, String description) {
    return () -> {
      onQueued.run();
      queueing.accept(description);
    };
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

  /** Returns the checkout's canonical path. */
  public Path checkout() {
    return checkout;
  }

  /** Returns the lock file (absolute); the lock is keyed by its canonical path. */
  public Path lockFile() {
    return lockFile;
  }

  /** Returns a description for messages: the checkout and the lock file. */
  public String describe() {
    return "pulled-extensions lock of " + checkout + " (" + lockFile + ")";
  }

  /**
   * Acquires the lock, waiting up to the budget.
   *
   * @return the held section; close it to release
   * @throws LockTimeoutException if the budget ran out; names the lock file and its holder
   * @throws IllegalStateException if this thread already holds this checkout's lock (use {@link
   *     Held#nested()})
   * @throws LocalFileException if the lock file cannot be created or locked
   * @throws InterruptedOperationException if the thread was interrupted while waiting
   */
  public Held acquire() {
    return new Outer(this, checkoutLock.acquire(clock.instant().plus(maxWait), describe()));
  }

  /**
   * Acquires the lock if nobody in this JVM has or awaits it and no other process holds it, without
   * waiting.
   *
   * @return the held section, or empty when another thread or process holds the lock
   * @throws IllegalStateException if this thread already holds this checkout's lock
   * @throws LocalFileException if the lock file cannot be created or locked
   */
  public Optional<Held> tryAcquire() {
    return checkoutLock.tryAcquire(describe()).map(held -> new Outer(this, held));
  }

  /**
   * Runs {@code action} in a section of this lock and releases it afterwards whatever happens.
   *
   * @return what {@code action} returned
   * @throws LockTimeoutException if the budget ran out
   */
  public <T> T withLock(Function<Held, T> action) {
    try (Held section = acquire()) {
      return action.apply(section);
    }
  }

  /**
   * A held pulled-extensions lock, or a nested use of one. Closing the outermost section releases
   * the lock (idempotent); closing a nested section only ends the nesting. Thread-safe.
   */
  public interface Held extends AutoCloseable {

    /** Returns the lock this section holds. */
    PulledExtensionsLock lock();

    /**
     * Returns a nested section for code that runs inside this one: it takes nothing and closing it
     * releases nothing.
     *
     * @throws IllegalStateException if this section (or its outermost one) is closed
     */
    Held nested();

    /** Returns whether this section and its outermost one are still open. */
    boolean isOpen();

    /**
     * Closes this section. For the outermost one: empties and unlocks the lock file and hands the
     * lock to the next waiter (all of it even when unlocking fails). Idempotent.
     *
     * @throws LocalFileException if unlocking the lock file failed (the lock is free nonetheless)
     */
    @Override
    void close();
  }

  /** The outermost section: holds the lock until closed. Thread-safe. */
  private static final class Outer implements Held {
    private final PulledExtensionsLock lock;
    private final CheckoutLock.Held held;
    private boolean closed;

    Outer(PulledExtensionsLock lock, CheckoutLock.Held held) {
      this.lock = lock;
      this.held = held;
    }

    @Override
    public PulledExtensionsLock lock() {
      return lock;
    }

    @Override
    public synchronized Held nested() {
      if (closed) {
        throw new IllegalStateException("Cannot enter a nested section of " + lock.describe() + ": the section is closed");
      }
      return new Nested(this, LockOrder.enter(LockLevel.PULLED_EXTENSIONS, lock.describe()));
    }

    @Override
    public synchronized boolean isOpen() {
      return !closed;
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        held.unlock();
      } catch (IOException e) {
        throw new LocalFileException("Cannot unlock " + lock.lockFile() + ": " + e.getMessage(), e);
      }
    }

    @Override
    public String toString() {
      return "section of " + lock.describe() + (isOpen() ? "" : " (closed)");
    }
  }

  /** A nested section: runs inline in its outermost one and releases nothing. */
  private static final class Nested implements Held {
    private final Outer root;
    private final LockOrder.Ticket ticket;
    private volatile boolean closed;

    Nested(Outer root, LockOrder.Ticket ticket) {
      this.root = root;
      this.ticket = ticket;
    }

    @Override
    public PulledExtensionsLock lock() {
      return root.lock;
    }

    @Override
    public Held nested() {
      if (closed) {
        throw new IllegalStateException("Cannot enter a nested section of " + root.lock.describe() + ": the section is closed");
      }
      return root.nested();
    }

    @Override
    public boolean isOpen() {
      return !closed && root.isOpen();
    }

    @Override
    public void close() {
      closed = true;
      ticket.close();
    }

    @Override
    public String toString() {
      return "nested " + root;
    }
  }

  /** Configures a {@link PulledExtensionsLock}. Not thread-safe. */
  public static final class Builder {

    private final Path checkoutPath;
    private @Nullable Path stateDirectory;
    private Duration maxWait = DEFAULT_MAX_WAIT;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private Clock clock = Clock.systemUTC();
    private Sleeper sleeper = Sleeper.SYSTEM;
    private OsLockRegistry registry = OsLockRegistry.shared();
    private Runnable onQueued = () -> { };
    private Consumer<String> queueing = waitedFor -> { };

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
     * Sets the wait budget, covering the wait in this JVM and for other processes.
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
     * Sets how often a busy lock file is tried again (also the longest a waiter queued in this JVM
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

    /**
     * Sets the clock that measures the wait budget, how the lock waits on a busy lock file, and the
     * hook told when a caller queues for it in this JVM.
     */
    Builder environment(Environment value) {
      this.clock = value.clock();
      this.sleeper = value.sleeper();
      this.queueing = value.queueing();
      return this;
    }

    /** Locks through another registry than the shared one (tests inject failures through it). */
    Builder registry(OsLockRegistry value) {
      this.registry = value;
      return this;
    }

    /** Runs {@code value} on a thread each time it has to queue in this JVM. */
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
