package dev.tierlock;

import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnsafeException;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DirectAccess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The entry point: one checkout sharing a datastore's lockfile. Holds an immutable configuration
 * (built with {@link #builder()}) and the parts built from it: the {@link #transaction()} most
 * callers use, the {@link #globalLock()}, the {@link #syncPort()}, the {@link #repository()} and the
 * {@link #pendingChanges()} record.
 *
 * <pre>{@code
 * try (Tierlock tierlock = Tierlock.builder()
 *     .datastore(URI.create("s3://bucket/prefix"))
 *     .checkout(Path.of("."))
 *     .build()) {
 *   tierlock.transaction().run(tx -> tx.repository().writeEntry(name, entry));
 * }
 * }</pre>
 *
 * <p>A datastore that implements {@link DirectAccess} (a shared filesystem) is used in {@link
 * SyncMode#DIRECT}; any other is used in {@link SyncMode#REMOTE} behind {@link
 * Datastores#selfChecked}, so that it writes nothing before proving it honours preconditions.
 *
 * <p>Thread-safe. Closing it closes the datastore only when it was opened from a URI.
 */
public final class Tierlock implements AutoCloseable {

  /** The default state directory, relative to the checkout. */
  public static final String DEFAULT_STATE_DIRECTORY = ".swamp";

  /** The default cache directory, relative to the state directory. */
  public static final String DEFAULT_CACHE_DIRECTORY = "tier-cache";

  private final Datastore datastore;
  private final boolean ownsDatastore;
  private final Namespace namespace;
  private final Path checkout;
  private final Path stateDirectory;
  private final Path cacheDirectory;
  private final DistributedLock globalLock;
  private final ManagedLockfileSyncPort port;
  private final LockfileRepository repository;
  private final PendingChangeStore pending;
  private final PulledExtensionsLock pulledExtensions;
  private final LockfileTransaction transaction;

  private Tierlock(Builder b, Datastore datastore, boolean owns) {
    this.ownsDatastore = owns;
    this.namespace = b.namespace;
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
    if (datastore instanceof DirectAccess) {
      this.datastore = datastore;
      this.port = ManagedLockfileSyncPort.direct(datastore, namespace);
      this.repository = LockfileRepository.open(port.lockfilePath(), port.lockPath(), b.sleeper);
    } else {
      SelfCheckedDatastore guard = (SelfCheckedDatastore) Datastores.selfChecked(datastore);
      trustEarlierVerdicts(guard, new SelfCheckMarker(stateDirectory, b.clock));
      this.datastore = guard;
      this.port = ManagedLockfileSyncPort.remote(guard, namespace, cacheDirectory, stateDirectory, b.sleeper);
      this.repository = LockfileRepository.openCache(port.lockfilePath(), port.lockPath(), b.sleeper);
    }
    LeaseLocks.Builder lock = LeaseLocks.builder(this.datastore, LeaseLocks.globalKey(namespace))
        .options(b.lockOptions).clock(b.clock).sleeper(b.sleeper).random(b.random).heartbeats(b.heartbeats);
    if (b.identity != null) {
      lock.identity(b.identity);
    }
    this.globalLock = lock.build();
    this.pending = PendingChangeStore.in(stateDirectory);
    this.pulledExtensions = PulledExtensionsLock.builder(checkout).stateDirectory(stateDirectory)
        .clock(b.clock).sleeper(b.sleeper).build();
    this.transaction = new LockfileTransaction(new TransactionSettings(port, repository, pending, globalLock,
        pulledExtensions, CheckoutLock.in(stateDirectory, b.clock, b.sleeper), b.clock, b.sleeper, b.random, b.policy,
        b.deadline, b.maxAttempts, TransactionSettings.DEFAULT_FIRST_BACKOFF, TransactionSettings.DEFAULT_MAX_BACKOFF,
        b.commitIds));
  }

  /**
   * Lets {@code guard} skip its self-check when the datastore passed it earlier: in this process
   * (any guard of a datastore with the same {@link Datastore#describe()}), or, by this checkout's
   * marker, within the last {@link SelfCheckMarker#TTL}; records a check that passes in this process
   * in the marker.
   */
  private static void trustEarlierVerdicts(SelfCheckedDatastore guard, SelfCheckMarker marker) {
    String identity = guard.describe();
    boolean passedHere = SelfCheckedDatastore.passedInThisProcess(identity);
    if (!guard.isChecked() && (passedHere || marker.isFresh(identity))) {
      guard.acceptVerdict();
    }
    if (!guard.isChecked()) {
      guard.onPass(() -> marker.record(identity));
    } else if (passedHere && !marker.isFresh(identity)) {
      marker.record(identity);
    }
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

  /** {@return the datastore global lock ({@code [<namespace>/].datastore.lock})} */
  public DistributedLock globalLock() {
    return globalLock;
  }

  /** {@return the sync port between this checkout and the shared lockfile} */
  public ManagedLockfileSyncPort syncPort() {
    return port;
  }

  /**
   * Returns the repository of the local lockfile (the cache copy, or the shared file in {@link
   * SyncMode#DIRECT}). Reading it outside a transaction shows what was last fetched or written;
   * change it only inside {@link LockfileTransaction#run}.
   *
   * @return the repository
   */
  public LockfileRepository repository() {
    return repository;
  }

  /** {@return the record of a change not published yet} */
  public PendingChangeStore pendingChanges() {
    return pending;
  }

  /** {@return the checkout's pulled-extensions lock} */
  public PulledExtensionsLock pulledExtensionsLock() {
    return pulledExtensions;
  }

  /** {@return how this checkout reaches the shared lockfile} */
  public SyncMode mode() {
    return port.mode();
  }

  /** {@return the datastore in use (guarded by the self-check in {@link SyncMode#REMOTE})} */
  public Datastore datastore() {
    return datastore;
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

  /** {@return the cache directory of the config tier (absolute; unused in {@link SyncMode#DIRECT})} */
  public Path cacheDirectory() {
    return cacheDirectory;
  }

  /**
   * Runs the datastore's precondition self-check now instead of before the first write (a no-op once
   * passed, and in {@link SyncMode#DIRECT}). A pass is remembered for the process (by {@link
   * Datastore#describe()}) and in the checkout's state directory for 24 hours, so other instances
   * and later processes on this checkout skip the check.
   *
   * @throws DatastoreUnsafeException if the datastore ignores preconditions
   * @throws DatastoreException if it fails during the check
   */
  public void checkDatastore() {
    if (datastore instanceof SelfCheckedDatastore checked) {
      checked.ensureChecked();
    }
  }

  /** Closes the datastore if this instance opened it from a URI. */
  @Override
  public void close() {
    if (ownsDatastore) {
      datastore.close();
    }
  }

  @Override
  public String toString() {
    return "Tierlock[" + port.describe() + ", checkout " + checkout + "]";
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
    private Clock clock = Clock.systemUTC();
    private Sleeper sleeper = Sleeper.SYSTEM;
    private RandomGenerator random = new SecureRandom();
    private LockOptions lockOptions = LockOptions.DEFAULTS;
    private Heartbeats heartbeats = Heartbeats.daemonThreads();
    private @Nullable LockIdentity identity;
    private PublishFailurePolicy policy = PublishFailurePolicy.THROW;
    private Duration deadline = TransactionSettings.DEFAULT_DEADLINE;
    private int maxAttempts = TransactionSettings.DEFAULT_MAX_ATTEMPTS;
    private Supplier<String> commitIds = randomCommitIds();

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
     * Opens the datastore {@code value} names at build time, through {@link Datastores#open(URI)}.
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
     * Sets the clock of locks and deadlines (default the system UTC clock).
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      this.clock = value;
      return this;
    }

    /**
     * Sets how Tierlock waits (default real sleeping).
     *
     * @param value the sleeper
     * @return this builder
     */
    public Builder sleeper(Sleeper value) {
      this.sleeper = value;
      return this;
    }

    /**
     * Sets the source of backoff jitter (default a {@link SecureRandom}); drawn from under its own monitor.
     *
     * @param value the source of jitter
     * @return this builder
     */
    public Builder random(RandomGenerator value) {
      this.random = value;
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
     * Sets what runs the global lock's heartbeats (default daemon threads).
     *
     * @param value what runs heartbeats
     * @return this builder
     */
    public Builder heartbeats(Heartbeats value) {
      this.heartbeats = value;
      return this;
    }

    /**
     * Sets who the global lock names as its holder (default this process).
     *
     * @param value the holder identity
     * @return this builder
     */
    public Builder lockIdentity(LockIdentity value) {
      this.identity = value;
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
     * Sets where commit ids come from: unique per lockfile write, letters, digits and {@code -}, 1
     * to 64 characters (default 16 random hex digits). Short ids let a write carry a longer lineage
     * within the 256 characters of a metadata value (see {@link LockfileHead}).
     *
     * @param value the source of commit ids
     * @return this builder
     */
    public Builder commitIds(Supplier<String> value) {
      this.commitIds = value;
      return this;
    }

    private static Supplier<String> randomCommitIds() {
      SecureRandom random = new SecureRandom();
      return () -> {
        byte[] bytes = new byte[8];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
      };
    }

    /**
     * Builds the checkout: opens the datastore if given by URI, creates the checkout and state
     * directories if missing, and reads the local lockfile's snapshot.
     *
     * @return the checkout, ready to use
     * @throws IllegalStateException if no datastore or checkout was set
     * @throws UnknownSchemeException if no provider opens the datastore URI's scheme
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
      Datastore opened = Datastores.open(datastoreUri);
      try {
        return new Tierlock(this, opened, true);
      } catch (RuntimeException e) {
        opened.close();
        throw e;
      }
    }
  }
}
