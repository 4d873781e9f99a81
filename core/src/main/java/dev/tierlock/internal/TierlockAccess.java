package dev.tierlock.internal;

import dev.tierlock.Tierlock;
import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import java.time.Clock;

/**
 * What Tierlock's own packages (the archive store, later the install and convergence engines)
 * read of a {@link Tierlock} that its public API does not offer: the guarded datastore, the cache
 * directory and the clock. {@link Tierlock} registers the accessor once, when its class is
 * initialised, which happens before any instance exists. Internal; thread-safe.
 */
public final class TierlockAccess {

  /** Reads a {@link Tierlock}'s parts; implemented once, by {@link Tierlock}. */
  public interface Accessor {
    /**
     * Returns the datastore, guarded by the precondition self-check.
     *
     * @param tierlock the checkout
     * @return its datastore
     */
    Datastore datastore(Tierlock tierlock);

    /**
     * Returns the cache directory of the config tier.
     *
     * @param tierlock the checkout
     * @return its cache directory (absolute)
     */
    Path cacheDirectory(Tierlock tierlock);

    /**
     * Returns the clock the checkout was built with.
     *
     * @param tierlock the checkout
     * @return its clock
     */
    Clock clock(Tierlock tierlock);

    /**
     * Returns the file of the checkout's pending-change record for its lockfile.
     *
     * @param tierlock the checkout
     * @return the record's path (absolute), whether or not it exists
     */
    Path pendingRecord(Tierlock tierlock);

    /**
     * Reads the shared lockfile by one conditional read (not-modified costs no download) and keeps
     * what it read in the checkout's cache, so the next read is conditional on it.
     *
     * @param tierlock the checkout
     * @return its version and contents
     * @throws dev.tierlock.LockfileFormatException if it does not parse
     * @throws dev.tierlock.spi.DatastoreException if the read failed
     */
    LockfileRead readLockfile(Tierlock tierlock);

    /**
     * Returns the version of the shared lockfile the checkout's cache holds, with no request.
     *
     * @param tierlock the checkout
     * @return the cached version, empty when nothing is cached
     */
    java.util.Optional<String> cachedVersion(Tierlock tierlock);

    /**
     * Opens a change that sees {@code view} and may not write, holding the checkout's
     * pulled-extensions lock, if nobody else holds it; never waits.
     *
     * @param tierlock the checkout
     * @param view the lockfile the change sees
     * @return the change, or empty when another thread or process holds the lock
     */
    java.util.Optional<ReadOnlyChange> tryReadOnly(Tierlock tierlock, dev.tierlock.Lockfile view);
  }

  private static volatile @org.jspecify.annotations.Nullable Accessor accessor;

  private TierlockAccess() {}

  /**
   * Registers the accessor; only {@link Tierlock} calls this, once.
   *
   * @param value the accessor
   * @throws IllegalStateException if one is registered already
   */
  public static synchronized void register(Accessor value) {
    if (accessor != null) {
      throw new IllegalStateException("Cannot register a second Tierlock accessor");
    }
    accessor = value;
  }

  /**
   * Returns the accessor.
   *
   * @return the accessor registered by {@link Tierlock}
   */
  public static Accessor of() {
    Accessor known = accessor;
    if (known == null) {
      throw new IllegalStateException("Cannot read a Tierlock's parts: the Tierlock class was not initialised");
    }
    return known;
  }
}
