package dev.tierlock.testkit;

import dev.tierlock.CommitMode;
import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Heartbeats;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockfileTransaction;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockOptions;
import dev.tierlock.Namespace;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionResult;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One checkout on a shared datastore, for tests and for trying Tierlock out: its own directory
 * (with its state directory and cache inside) and a {@link Tierlock} on the shared store, timed by
 * a {@link TestClock} so that nothing sleeps for real, with heartbeats that never run (a lease
 * stays fresh only until the clock passes its ttl, which is how a test stalls a holder). Build
 * several on one datastore to play several machines, two on one directory to play two processes
 * on one checkout, and {@link #reopen()} one to play its process restarting.
 *
 * <pre>{@code
 * TestClock clock = TestClock.create();
 * TestCheckout a = TestCheckout.builder(remote, dir.resolve("a"), clock).build();
 * TestCheckout b = TestCheckout.builder(remote, dir.resolve("b"), clock).build();
 * a.put("@acme/web", "1.0.0");
 * b.remove("@acme/db");
 * assertThat(a.shared().names()).containsExactly(ExtensionName.of("@acme/web"));
 * }</pre>
 *
 * <p>Thread-safe as {@link Tierlock} is. Closing it closes nothing shared.
 */
public final class TestCheckout implements AutoCloseable {

  private final Tierlock tierlock;
  private final Builder settings;

  private TestCheckout(Tierlock tierlock, Builder settings) {
    this.tierlock = tierlock;
    this.settings = settings;
  }

  /**
   * Starts a checkout in {@code directory} (created if missing) on {@code shared}. The self-check
   * runs once per datastore instance in a process, so many checkouts on one store pay it once.
   *
   * @param shared the shared datastore (not closed by the checkout)
   * @param directory the checkout's directory
   * @param clock the clock every checkout of the test shares
   * @return a builder with the defaults
   */
  public static Builder builder(Datastore shared, Path directory, TestClock clock) {
    return new Builder(shared, directory, clock);
  }

  /** {@return the checkout's Tierlock} */
  public Tierlock tierlock() {
    return tierlock;
  }

  /** {@return the checkout's transaction} */
  public LockfileTransaction transaction() {
    return tierlock.transaction();
  }

  /** {@return the checkout directory} */
  public Path directory() {
    return settings.directory;
  }

  /** {@return the clock the checkout runs on} */
  public TestClock clock() {
    return settings.clock;
  }

  /**
   * Plays this checkout's process restarting: closes this checkout and returns a new one on the
   * same directory and datastore with the same settings. The new one knows only what the
   * checkout's files hold (its cache, its pending record), none of this instance's memory. The
   * self-check is not run again (this datastore instance passed it, or it runs before the first
   * write).
   *
   * @return the restarted checkout
   */
  public TestCheckout reopen() {
    close();
    return settings.open(false);
  }

  /**
   * Returns a plain entry of {@code version}, pulled at the clock's current instant.
   *
   * @param version the entry's version
   * @return the entry
   */
  public LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, settings.clock.instant()).build();
  }

  /**
   * Sets {@code name} to {@code version} in one transaction (what {@code extension pull} does to the
   * lockfile).
   *
   * @param name the extension name
   * @param version its version
   * @return how the transaction ended
   * @throws dev.tierlock.TierlockException as {@link LockfileTransaction#run} does
   */
  public TransactionResult put(String name, String version) {
    ExtensionName parsed = ExtensionName.of(name);
    LockfileEntry entry = entry(version);
    return transaction().run(tx -> tx.put(parsed, entry));
  }

  /**
   * Removes {@code name} in one transaction (what {@code extension rm} does to the lockfile).
   *
   * @param name the extension name
   * @return how the transaction ended
   * @throws dev.tierlock.TierlockException as {@link LockfileTransaction#run} does
   */
  public TransactionResult remove(String name) {
    ExtensionName parsed = ExtensionName.of(name);
    return transaction().run(tx -> tx.remove(parsed));
  }

  /**
   * Returns the checkout's cached copy of the shared lockfile as on disk now (empty when there is
   * none). The cache only saves downloads: Tierlock never trusts it without its recorded digest.
   *
   * @return the cached copy
   * @throws dev.tierlock.LockfileFormatException if the copy does not decode
   */
  public Lockfile local() {
    try {
      Path path = cachePath();
      return Files.exists(path) ? Lockfile.parse(Files.readAllBytes(path), path.toString()) : Lockfile.EMPTY;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the cached lockfile of " + settings.directory, e);
    }
  }

  /**
   * {@return the file of the checkout's pending-change record for its lockfile, whether or not it
   * exists (one per namespace: {@code <state>/[namespaces/<ns>/]managed-config-lockfile-unpublished})}
   */
  public Path pendingRecordPath() {
    Path state = tierlock.stateDirectory();
    return tierlock.namespace().name().map(n -> state.resolve("namespaces").resolve(n)).orElse(state)
        .resolve("managed-config-lockfile-unpublished");
  }

  /** {@return the file of the checkout's cached copy of the shared lockfile} */
  public Path cachePath() {
    return tierlock.namespace().localPath(tierlock.cacheDirectory(), TierPath.LOCKFILE);
  }

  /**
   * Returns the shared lockfile as the datastore holds it now (empty when absent), read without
   * touching this checkout.
   *
   * @return the shared lockfile
   * @throws dev.tierlock.LockfileFormatException if it does not decode
   */
  public Lockfile shared() {
    return sharedLockfile(tierlock.datastore(), tierlock.namespace());
  }

  /**
   * Returns the shared lockfile {@code datastore} holds under {@code namespace} (empty when
   * absent).
   *
   * @param datastore the shared datastore
   * @param namespace the namespace the lockfile's key is bound to
   * @return the shared lockfile
   * @throws dev.tierlock.LockfileFormatException if it does not decode
   */
  public static Lockfile sharedLockfile(Datastore datastore, Namespace namespace) {
    ReadResult read = datastore.read(namespace.key(TierPath.LOCKFILE), ReadCondition.always(), Lockfile.MAX_BYTES);
    if (read instanceof ReadResult.Found found) {
      return Lockfile.parse(found.bytes(), datastore.describe() + " " + namespace.key(TierPath.LOCKFILE));
    }
    return Lockfile.EMPTY;
  }

  /**
   * Overwrites the cached copy with {@code lockfile}, behind Tierlock's back (to make the cache
   * stale or odd on purpose: Tierlock must notice and read the shared lockfile in full). A
   * checkout keeps what it fetched in memory as well, so only a {@link #reopen() reopened}
   * checkout, or another instance on the same directory, reads the file.
   *
   * @param lockfile what the local copy holds afterwards
   */
  public void overwriteLocal(Lockfile lockfile) {
    try {
      Path path = cachePath();
      Files.createDirectories(path.getParent());
      Files.write(path, lockfile.bytes());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot overwrite the local lockfile of " + settings.directory, e);
    }
  }

  /** Closes the checkout's Tierlock (which leaves a caller-owned datastore open). */
  @Override
  public void close() {
    tierlock.close();
  }

  @Override
  public String toString() {
    return "TestCheckout[" + settings.directory + "]";
  }

  /** Configures a {@link TestCheckout}. Not thread-safe. */
  public static final class Builder {

    private final Datastore shared;
    private final Path directory;
    private final TestClock clock;
    private Namespace namespace = Namespace.NONE;
    private PublishFailurePolicy policy = PublishFailurePolicy.THROW;
    private LockOptions lockOptions = LockOptions.DEFAULTS;
    private Duration deadline = Duration.ofSeconds(120);
    private int maxAttempts = 12;
    private CommitMode mode = CommitMode.LOCKED;
    private boolean grouped = true;
    private @Nullable Supplier<String> commitIds;
    private Consumer<String> queueing = waitedFor -> { };
    private long seed;
    private boolean checkNow = true;

    private Builder(Datastore shared, Path directory, TestClock clock) {
      this.shared = shared;
      this.directory = directory;
      this.clock = clock;
      this.seed = directory.toString().hashCode();
    }

    /**
     * Sets the namespace (default none).
     *
     * @param value the namespace
     * @return this builder
     */
    public Builder namespace(Namespace value) {
      this.namespace = value;
      return this;
    }

    /**
     * Sets what a publish failure does (default {@link PublishFailurePolicy#THROW}).
     *
     * @param value the policy
     * @return this builder
     */
    public Builder publishFailurePolicy(PublishFailurePolicy value) {
      this.policy = value;
      return this;
    }

    /**
     * Sets the global lock's options (default {@link LockOptions#DEFAULTS}).
     *
     * @param value the lock options
     * @return this builder
     */
    public Builder lockOptions(LockOptions value) {
      this.lockOptions = value;
      return this;
    }

    /**
     * Sets the transaction deadline (default 120 s of test-clock time).
     *
     * @param value the deadline
     * @return this builder
     */
    public Builder transactionDeadline(Duration value) {
      this.deadline = value;
      return this;
    }

    /**
     * Sets the most publish attempts of one transaction (default 12, as Tierlock's).
     *
     * @param value the most attempts, at least 1
     * @return this builder
     */
    public Builder maxPublishAttempts(int value) {
      this.maxAttempts = value;
      return this;
    }

    /**
     * Sets how the checkout's transactions exclude other writers (default {@link CommitMode#LOCKED}).
     *
     * @param value the mode
     * @return this builder
     */
    public Builder commitMode(CommitMode value) {
      this.mode = value;
      return this;
    }

    /**
     * Runs each transaction on its own, without group commit (default: grouped, as Tierlock's).
     *
     * @return this builder
     */
    public Builder withoutGroupCommit() {
      this.grouped = false;
      return this;
    }

    /**
     * Sets where the checkout's commit ids come from (default Tierlock's random ids), so that a
     * test can tell whose write a stored lockfile is.
     *
     * @param value the source of commit ids, unique per write
     * @return this builder
     */
    public Builder commitIds(Supplier<String> value) {
      this.commitIds = value;
      return this;
    }

    /**
     * Sets the hook told, on the caller's thread, each time a caller of this checkout has to queue
     * in this JVM behind another ({@link Environment#withQueueing}; default nothing), so that a
     * test waits on it, not on a thread looking parked, to know a caller has queued.
     *
     * @param value the hook; it must return quickly and must not call Tierlock
     * @return this builder
     */
    public Builder queueing(Consumer<String> value) {
      this.queueing = java.util.Objects.requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets the seed of the backoff jitter (default derived from the directory).
     *
     * @param value the seed
     * @return this builder
     */
    public Builder seed(long value) {
      this.seed = value;
      return this;
    }

    /**
     * Defers the datastore self-check to the first write instead of running it at build.
     *
     * @return this builder
     */
    public Builder deferSelfCheck() {
      this.checkNow = false;
      return this;
    }

    /**
     * Creates the directory and builds the checkout; runs the datastore self-check now unless
     * deferred.
     *
     * @return the checkout
     * @throws dev.tierlock.spi.DatastoreUnsafeException if the shared store ignores preconditions
     */
    public TestCheckout build() {
      return open(checkNow);
    }

    private TestCheckout open(boolean selfCheck) {
      try {
        Files.createDirectories(directory);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot create checkout directory " + directory, e);
      }
      Heartbeats never = (name, interval, beat) -> () -> { };
      Environment environment = Environment.system().withClock(clock).withSleeper(clock.sleeper())
          .withRandom(new SplittableRandom(seed)).withHeartbeats(never)
          .withLockIdentity(LockIdentity.of("test@" + directory.getFileName(), "test-host", 1)).withQueueing(queueing);
      Tierlock.Builder builder = Tierlock.builder()
          .datastore(shared)
          .checkout(directory)
          .namespace(namespace)
          .environment(commitIds == null ? environment : environment.withCommitIds(commitIds))
          .lockOptions(lockOptions)
          .publishFailurePolicy(policy)
          .transactionDeadline(deadline)
          .maxPublishAttempts(maxAttempts)
          .commitMode(mode);
      if (!grouped) {
        builder.withoutGroupCommit();
      }
      Tierlock tierlock = builder.build();
      if (selfCheck) {
        tierlock.checkDatastore();
      }
      return new TestCheckout(tierlock, copy());
    }

    /** Returns a builder with this one's settings, so that a later change to this one reaches no built checkout. */
    private Builder copy() {
      Builder copy = new Builder(shared, directory, clock);
      copy.namespace = namespace;
      copy.policy = policy;
      copy.lockOptions = lockOptions;
      copy.deadline = deadline;
      copy.maxAttempts = maxAttempts;
      copy.mode = mode;
      copy.grouped = grouped;
      copy.commitIds = commitIds;
      copy.queueing = queueing;
      copy.seed = seed;
      copy.checkNow = checkNow;
      return copy;
    }
  }
}
