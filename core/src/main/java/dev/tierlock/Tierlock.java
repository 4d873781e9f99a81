package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The entry point: one checkout sharing a datastore's lockfile. Holds an immutable configuration
 * (built with {@link #builder()}) and what is built from it: the {@link #transaction()} that
 * changes the shared lockfile, a read-only {@link #snapshot()}, the {@link #globalLock()} and the
 * datastore's precondition {@link #checkDatastore() self-check}.
 *
 * <pre>{@code
 * try (Tierlock tierlock = Tierlock.builder()
 *     .datastore(URI.create("s3://bucket/prefix"))
 *     .checkout(Path.of("."))
 *     .build()) {
 *   tierlock.transaction().run(tx -> tx.put(name, entry));
 * }
 * }</pre>
 *
 * <p>Every datastore is used the same way: the shared lockfile is fetched by a conditional read
 * and written by a write conditional on the version fetched; a filesystem datastore included.
 * Before its first write the datastore must prove that it honours preconditions (see {@link
 * #checkDatastore()}).
 *
 * <p>Thread-safe. Closing it closes the datastore only when it was opened from a URI.
 */
public final class Tierlock implements AutoCloseable {

  /** The default state directory, relative to the checkout. */
  public static final String DEFAULT_STATE_DIRECTORY = ".swamp";

  /** The default cache directory, relative to the state directory. */
  public static final String DEFAULT_CACHE_DIRECTORY = "tier-cache";

  private final boolean ownsDatastore;
  private final Namespace namespace;
  private final Path checkout;
  private final Path stateDirectory;
  private final Path cacheDirectory;
  private final Clock clock;
  private final Environment environment;
  private final SelfCheckedDatastore guard;
  private final Datastore tier;
  private final DistributedLock globalLock;
  private final LockfileStore store;
  private final LockfileTransaction transaction;
  private final PulledExtensionsLock pulledExtensions;

  private Tierlock(Builder b, Datastore datastore, boolean owns) {
    this.ownsDatastore = owns;
    this.namespace = b.namespace;
    this.environment = b.environment;
    this.clock = environment.clock();
    this.checkout = b.checkout.toAbsolutePath().normalize();
    this.stateDirectory = b.stateDirectory != null
        ? b.stateDirectory.toAbsolutePath().normalize()
        : checkout.resolve(DEFAULT_STATE_DIRECTORY);
    this.cacheDirectory = b.cacheDirectory != null
        ? b.cacheDirectory.toAbsolutePath().normalize()
        : stateDirectory.resolve(DEFAULT_CACHE_DIRECTORY);
    try {
      Files.createDirectories(checkout);
      Files.createDirectories(stateDirectory);
    } catch (IOException e) {
      throw new LocalFileException("Cannot create checkout " + checkout + " and its state directory " + stateDirectory
          + ": " + e.getMessage(), e);
    }
    this.guard = new SelfCheckedDatastore(datastore, namespace, new SelfCheckMarker(stateDirectory), clock);
    this.tier = new ReservedKeys(guard);
    this.store = new LockfileStore(guard, namespace, cacheDirectory, stateDirectory);
    this.globalLock = new Lease(guard, DistributedLock.globalKey(namespace), b.lockOptions, environment,
        Lease.HandoverBudget.DEFAULT);
    this.pulledExtensions = PulledExtensionsLock.builder(checkout).stateDirectory(stateDirectory)
        .environment(environment).build();
    this.transaction = new LockfileTransaction(new TransactionSettings(store, new PendingRecord(stateDirectory, namespace, datastore.identity()),
        globalLock, pulledExtensions, CheckoutLock.in(stateDirectory, environment), clock,
        environment.sleeper(), environment.random(), b.policy, b.deadline, b.maxAttempts, b.firstBackoff, b.maxBackoff,
        environment.commitIds(), b.mode, b.grouped, b.trustAfter, TransactionSettings.DEFAULT_YIELD_AFTER,
        environment.queueing()));
  }

  /**
   * Starts a configuration.
   *
   * @return a builder with the defaults
   */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the transaction that changes the shared lockfile} */
  public LockfileTransaction transaction() {
    return transaction;
  }

  /** {@return the environment this checkout runs in: its clock, sleeper, random source and the rest} */
  public Environment environment() {
    return environment;
  }

  /** {@return the datastore global lock ({@code [<namespace>/].datastore.lock})} */
  public DistributedLock globalLock() {
    return globalLock;
  }

  /**
   * Reads the shared lockfile as it is now: one read (conditional on the checkout's cached version,
   * so not-modified costs no download), no lock, and nothing written anywhere; it works on a
   * read-only datastore and while another checkout holds the global lock. A change of this
   * checkout that is still pending is not in it ({@link LockfileTransaction#pending()}).
   *
   * @return the shared lockfile, empty when it does not exist
   * @throws ManagedLockfileUnavailableException if the datastore could not be read for a passing reason
   * @throws LockfileFormatException if the shared lockfile does not parse
   * @throws dev.tierlock.spi.DatastoreException if the datastore refused otherwise (access denied, too large)
   */
  public Lockfile snapshot() {
    try {
      return store.fetch(LockfileStore.Fetch.PEEK).lockfile();
    } catch (DatastoreUnavailableException | DatastoreBusyException e) {
      throw new ManagedLockfileUnavailableException("Cannot read the shared lockfile from " + store.describe(), e);
    }
  }

  /**
   * Reads the shared lockfile by one conditional read (on the version this checkout last read or
   * published: not-modified costs no download) and keeps what it read in the checkout's cache, so
   * the next read is conditional on it. No lock is taken and nothing is written to the datastore.
   * A change of this checkout that is still pending is not in it ({@link
   * LockfileTransaction#pending()}).
   *
   * @return the shared lockfile and its version; an empty version when it does not exist
   * @throws ManagedLockfileUnavailableException if the datastore could not be read for a passing reason
   * @throws LockfileFormatException if the shared lockfile does not parse
   * @throws dev.tierlock.spi.DatastoreException if the datastore refused otherwise (access denied, too large)
   */
  public LockfileRead read() {
    try {
      return asRead(store.fetch(LockfileStore.Fetch.KEEP));
    } catch (DatastoreUnavailableException | DatastoreBusyException e) {
      throw new ManagedLockfileUnavailableException("Cannot read the shared lockfile from " + store.describe(), e);
    }
  }

  /**
   * Returns the shared lockfile as this checkout last read or published it, from its cache, with no
   * request: what {@link #read()} would compare with. A cache that is missing, damaged or bound to
   * another lockfile is no answer.
   *
   * @return the cached lockfile and its version, or empty when nothing trustworthy is cached
   */
  public Optional<LockfileRead> cached() {
    return store.cache().current().map(e -> new LockfileRead(Optional.of(e.head().version().value()), e.lockfile()));
  }

  private static LockfileRead asRead(LockfileStore.Fetched fetched) {
    return new LockfileRead(Optional.ofNullable(fetched.head()).map(h -> h.version().value()), fetched.lockfile());
  }

  /**
   * Runs {@code action} holding this checkout's pulled-extensions lock (the lock that serialises
   * local install work on one checkout across threads and processes) if nobody else holds it, and
   * releases it when {@code action} returns or throws; never waits. For local work on installed
   * extensions that changes no lockfile (convergence); work that changes the lockfile takes the
   * lock inside a transaction ({@link TransactionContext#withPulledExtensionsLock}).
   *
   * @param action what to run under the lock; must not return null
   * @param <T> what it returns
   * @return what {@code action} returned, or empty when another thread or process holds the lock
   * @throws IllegalStateException if this thread holds an inner lock already (lock order), or
   *     {@code action} returned null
   */
  public <T> Optional<T> tryWithPulledExtensionsLock(Supplier<T> action) {
    Optional<PulledExtensionsLock.Held> taken = pulledExtensions.tryAcquire();
    if (taken.isEmpty()) {
      return Optional.empty();
    }
    try (PulledExtensionsLock.Held section = taken.get()) {
      T value = action.get();
      if (value == null) {
        throw new IllegalStateException("Cannot run under the pulled-extensions lock of " + checkout
            + ": the action returned null");
      }
      return Optional.of(value);
    }
  }

  /**
   * Returns the datastore this checkout shares, behind the precondition self-check (its first write
   * proves the store honours preconditions). For the objects beside the shared lockfile (the
   * archive store writes archives through it): a write or delete of any namespace's shared lockfile
   * or global lock is refused, since only a transaction and the lock change them.
   *
   * @return the datastore, owned by this instance (closing it is {@link #close()}'s job)
   */
  public Datastore datastore() {
    return tier;
  }

  /**
   * The datastore requests one piece of work made, and the body bytes they downloaded.
   *
   * @param value what the work returned
   * @param requests the requests it made through a Tierlock's datastore
   * @param bytes the body bytes those requests downloaded (read from the streams they opened)
   * @param <T> what the work returns
   */
  public record Measured<T>(T value, long requests, long bytes) {}

  /**
   * Runs {@code work} on this thread and counts the datastore requests it makes meanwhile, on this
   * thread, through the datastore of any {@link Tierlock} (reads, writes, stats, deletes, listings,
   * downloads), with the bytes each downloads: what a piece of work costs. A measurement already
   * running on this thread is suspended until {@code work} returns.
   *
   * @param work the work
   * @param <T> what it returns
   * @return what {@code work} returned, with its requests and bytes
   */
  public static <T> Measured<T> measure(Supplier<T> work) {
    RequestMeter.Tally tally = new RequestMeter.Tally();
    T value = RequestMeter.measure(tally, work);
    return new Measured<>(value, tally.requests(), tally.bytes());
  }

  /** {@return the cache directory of the config tier (absolute); never synced} */
  public Path cacheDirectory() {
    return cacheDirectory;
  }

  /** {@return the namespace} */
  public Namespace namespace() {
    return namespace;
  }

  /** {@return the checkout directory (absolute)} */
  public Path checkoutDirectory() {
    return checkout;
  }

  /** {@return the state directory (absolute); never synced} */
  public Path stateDirectory() {
    return stateDirectory;
  }

  /**
   * Proves now, instead of before the first write, that the datastore honours write preconditions
   * (create-only, compare-and-swap and conditional delete, atomically under concurrent writers). A
   * pass leaves a verdict object in the store and is remembered for 24 hours, in this process and
   * in the checkout's state directory; a later process trusts it only after one read proves that
   * the store still holds that verdict, so another store at the same address is checked in full.
   *
   * @throws dev.tierlock.spi.DatastoreUnsafeException if the datastore ignores preconditions
   * @throws dev.tierlock.spi.DatastoreException if it fails during the check (it runs again next time)
   */
  public void checkDatastore() {
    guard.ensureChecked();
  }

  /** Closes the datastore if this instance opened it from a URI. */
  @Override
  public void close() {
    if (ownsDatastore) {
      guard.close();
    }
  }

  @Override
  public String toString() {
    return "Tierlock[" + store.describe() + ", checkout " + checkout + "]";
  }

  /**
   * An immutable-once-built configuration of a {@link Tierlock}. Required: a datastore and a
   * checkout. Not thread-safe.
   */
  public static final class Builder {

    private @Nullable Datastore datastore;
    private @Nullable URI datastoreUri;
    private @Nullable Path checkout;
    private @Nullable Path stateDirectory;
    private @Nullable Path cacheDirectory;
    private Namespace namespace = Namespace.NONE;
    private Environment environment = Environment.system();
    private LockOptions lockOptions = LockOptions.DEFAULTS;
    private PublishFailurePolicy policy = PublishFailurePolicy.THROW;
    private Duration deadline = TransactionSettings.DEFAULT_DEADLINE;
    private int maxAttempts = TransactionSettings.DEFAULT_MAX_ATTEMPTS;
    private Duration firstBackoff = TransactionSettings.DEFAULT_FIRST_BACKOFF;
    private Duration maxBackoff = TransactionSettings.DEFAULT_MAX_BACKOFF;
    private CommitMode mode = CommitMode.AUTO;
    private int trustAfter = AutoMode.DEFAULT_TRUST_AFTER;
    private boolean grouped = true;
    private boolean createDatastore;

    private Builder() {}

    /**
     * Uses {@code value}, owned by the caller (not closed by {@link Tierlock#close()}).
     *
     * @param value the datastore
     * @return this builder
     */
    public Builder datastore(Datastore value) {
      this.datastore = value;
      this.datastoreUri = null;
      return this;
    }

    /**
     * Opens the datastore {@code value} names at build time ({@code s3://bucket/prefix}, {@code
     * gs://bucket/prefix}, {@code file:///path}), through the {@link dev.tierlock.spi.DatastoreProvider}
     * registered for its scheme. A datastore that is not there is refused ({@code
     * datastore_missing}) unless {@link #createDatastore()} is set: a mistyped address never
     * becomes a new, empty datastore.
     *
     * @param value the datastore's URI
     * @return this builder
     */
    public Builder datastore(URI value) {
      this.datastoreUri = value;
      this.datastore = null;
      return this;
    }

    /**
     * Creates the datastore given by {@link #datastore(URI)} at build time if it is missing (a
     * filesystem datastore's directory, with its parents), through its provider's {@link
     * dev.tierlock.spi.DatastoreProvider#create create}; a provider whose datastores are made
     * elsewhere (S3, GCS: the bucket is the operator's) only opens it. Without it, a missing
     * datastore is refused with {@code datastore_missing}. Ignored for a datastore given as an
     * object.
     *
     * @return this builder
     */
    public Builder createDatastore() {
      this.createDatastore = true;
      return this;
    }

    /**
     * Sets the checkout directory (created if missing).
     *
     * @param value the checkout directory
     * @return this builder
     */
    public Builder checkout(Path value) {
      this.checkout = value;
      return this;
    }

    /**
     * Sets the state directory (default {@code <checkout>/.swamp}); created if missing.
     *
     * @param value the state directory
     * @return this builder
     */
    public Builder stateDirectory(Path value) {
      this.stateDirectory = value;
      return this;
    }

    /**
     * Sets the cache directory of the config tier (default {@code <state>/tier-cache}).
     *
     * @param value the cache directory
     * @return this builder
     */
    public Builder cacheDirectory(Path value) {
      this.cacheDirectory = value;
      return this;
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
     * Sets what Tierlock takes from the world around it: the clock of locks and deadlines, how it
     * waits, the jitter of its backoffs, the heartbeats of the global lock, this host's processes,
     * who lock records name as the holder, lock nonces, commit ids and the crash-boundary hook
     * (default {@link Environment#system()}).
     *
     * @param value the environment
     * @return this builder
     */
    public Builder environment(Environment value) {
      this.environment = value;
      return this;
    }

    /**
     * Sets the global lock's ttl, retries and maximum wait (default {@link LockOptions#DEFAULTS}).
     *
     * @param value the lock options
     * @return this builder
     */
    public Builder lockOptions(LockOptions value) {
      this.lockOptions = value;
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
     * Sets how long a transaction may take, lock wait included, before it stops retrying its publish
     * (default 120 s).
     *
     * @param value the deadline, positive
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder transactionDeadline(Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Cannot use transaction deadline " + value + ": it must be positive");
      }
      this.deadline = value;
      return this;
    }

    /**
     * Sets the most publish attempts of one transaction (default 12).
     *
     * @param value the most attempts, at least 1
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxPublishAttempts(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("Cannot use " + value + " publish attempts: at least 1");
      }
      this.maxAttempts = value;
      return this;
    }

    /**
     * Sets how long a transaction waits before it tries its publish again after the store failed
     * or was busy (default 1 s, doubling up to 8 s, each wait jittered): GCS allows about one write
     * per second per object, so a shorter first wait mostly meets another refusal there.
     *
     * @param first the first wait, positive
     * @param max the longest wait, at least {@code first}
     * @return this builder
     * @throws IllegalArgumentException if {@code first} is not positive or exceeds {@code max}
     */
    public Builder publishBackoff(Duration first, Duration max) {
      if (first.isNegative() || first.isZero() || first.compareTo(max) > 0) {
        throw new IllegalArgumentException("Cannot use publish backoff " + first + " up to " + max
            + ": the first wait must be positive and at most the longest");
      }
      this.firstBackoff = first;
      this.maxBackoff = max;
      return this;
    }

    /**
     * Sets how transactions exclude other writers of the shared lockfile (default {@link
     * CommitMode#AUTO}; see {@link CommitMode} for when to choose which).
     *
     * @param value the mode
     * @return this builder
     */
    public Builder commitMode(CommitMode value) {
      this.mode = java.util.Objects.requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets, for {@link CommitMode#AUTO}, how many consecutive versions of the shared lockfile
     * written by Tierlock make runs take no lease again after a version written without Tierlock's
     * commit metadata (default 8; capped by how many commit ids the store's metadata keeps).
     *
     * @param versions the consecutive Tierlock versions, at least 1
     * @return this builder
     * @throws IllegalArgumentException if {@code versions} is below 1
     */
    public Builder autoTrustAfter(int versions) {
      if (versions < 1) {
        throw new IllegalArgumentException("Cannot trust the shared lockfile after " + versions
            + " versions: at least 1");
      }
      this.trustAfter = versions;
      return this;
    }

    /**
     * Runs every transaction on its own instead of merging the runs queued on this checkout into
     * one publish (group commit, the default; see {@link LockfileTransaction#run}). Each run then
     * pays its own lock, read and write.
     *
     * @return this builder
     */
    public Builder withoutGroupCommit() {
      this.grouped = false;
      return this;
    }

    /**
     * Builds the checkout: opens the datastore if given by URI, creates the checkout and state
     * directories if missing, and reads the local lockfile's snapshot.
     *
     * @return the checkout, ready to use
     * @throws IllegalStateException if no datastore or checkout was set
     * @throws InvalidInputException ({@code unknown_scheme}) if no provider opens the datastore URI's scheme
     * @throws dev.tierlock.spi.DatastoreMissingException ({@code datastore_missing}) if there is no
     *     datastore at the URI (a filesystem datastore's directory is missing) and {@link
     *     #createDatastore()} was not set; nothing was created: fix the address, or create it
     * @throws LockfileFormatException if the local lockfile does not decode
     * @throws LocalFileException if a directory cannot be created
     */
    public Tierlock build() {
      if (checkout == null) {
        throw new IllegalStateException("Cannot build Tierlock: no checkout directory was set");
      }
      if (datastore != null) {
        return new Tierlock(this, datastore, false);
      }
      if (datastoreUri == null) {
        throw new IllegalStateException("Cannot build Tierlock: no datastore was set");
      }
      Datastore opened = createDatastore ? Datastores.create(datastoreUri) : Datastores.open(datastoreUri);
      try {
        return new Tierlock(this, opened, true);
      } catch (RuntimeException e) {
        opened.close();
        throw e;
      }
    }
  }
}
