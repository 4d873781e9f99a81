package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DirectAccess;
import dev.tierlock.spi.ObjectVersion;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The seam between a checkout and the shared lockfile: {@link #hydrate()} brings the shared
 * lockfile into the checkout's local copy, {@link #publish} sends named tier paths back. A {@link
 * LockfileTransaction} calls both under the datastore global lock; fakes plug in here.
 *
 * <p>Implementations are thread-safe, but callers serialise hydrate and publish of one checkout
 * (the transaction does, under the global lock).
 */
public interface ManagedLockfileSyncPort {

  /** Returns how this port reaches the shared lockfile. */
  SyncMode mode();

  /** Returns a description for messages: the datastore and the lockfile's key or path. */
  String describe();

  /** Returns the local lockfile file: the cache copy ({@link SyncMode#REMOTE}) or the shared file itself. */
  Path lockfilePath();

  /** Returns the file the lockfile's own lock is taken on (outside anything synced). */
  Path lockPath();

  /**
   * Returns the local file of a tier path: where a file to publish is placed (in the cache), or, in
   * {@link SyncMode#DIRECT}, where it is shared.
   */
  Path localPath(TierPath path);

  /**
   * Fetches the shared lockfile into {@link #lockfilePath()}: a conditional read of exactly the
   * lockfile's key (no download when the cached copy is current and untouched), the bytes decoded
   * before the local copy is replaced atomically; a shared lockfile that does not exist removes the
   * local copy. Does nothing in {@link SyncMode#DIRECT}.
   *
   * @return the version seen, or empty when the shared lockfile does not exist (or in {@link
   *     SyncMode#DIRECT})
   * @throws LockfileFormatException if the shared lockfile does not decode; the local copy is then
   *     unchanged
   * @throws DatastoreException if the read fails; the local copy is then unchanged
   * @throws LocalFileException if the local copy cannot be written
   */
  Optional<ObjectVersion> hydrate();

  /**
   * Uploads exactly the tier paths {@code request} names from their local files: create-only paths
   * first, then the lockfile under its precondition with a fresh commit id in its metadata, then
   * deletions. An unanswered lockfile write is resolved by reading the commit id back. In {@link
   * SyncMode#DIRECT} the files are already shared and only the deletions are made.
   *
   * @return {@link PublishOutcome.Published}, or {@link PublishOutcome.Conflict} when the
   *     lockfile's precondition failed (or the read-back showed another commit)
   * @throws PublishRefusedException if a path's local file resolves outside the cache root, or the
   *     local lockfile does not decode; nothing was uploaded
   * @throws OutcomeUnknownException if a write went unanswered and reading back failed too
   * @throws DatastoreException if the datastore fails otherwise
   * @throws LocalFileException if a local file cannot be read
   */
  PublishOutcome publish(PublishRequest request);

  /**
   * Returns the port over a remote datastore, caching the config tier under {@code cacheRoot}.
   *
   * @param datastore the shared datastore (not closed by the port)
   * @param namespace the namespace keys are bound to, once
   * @param cacheRoot the root of the local cache, laid out like the datastore
   * @param stateDirectory the checkout's state directory: holds the lockfile's lock and what the
   *     last hydrate saw; never synced
   * @param sleeper waits between attempts at the lockfile's local lock
   * @param commitIds a fresh, unique id per publish (letters, digits and {@code -})
   */
  static ManagedLockfileSyncPort remote(Datastore datastore, Namespace namespace, Path cacheRoot, Path stateDirectory,
      Sleeper sleeper, Supplier<String> commitIds) {
    return new RemoteLockfileSyncPort(datastore, namespace, cacheRoot, stateDirectory, sleeper, commitIds);
  }

  /**
   * Returns the direct port of a datastore that implements {@link DirectAccess}: the lockfile is
   * edited where the datastore keeps it, its lock lives in the datastore's lock directory.
   *
   * @throws IllegalArgumentException if {@code datastore} does not implement {@link DirectAccess}
   */
  static ManagedLockfileSyncPort direct(Datastore datastore, Namespace namespace) {
    if (!(datastore instanceof DirectAccess direct)) {
      throw new IllegalArgumentException("Cannot use " + datastore.describe() + " directly: it does not implement DirectAccess");
    }
    return new DirectLockfileSyncPort(datastore, direct, namespace);
  }
}
