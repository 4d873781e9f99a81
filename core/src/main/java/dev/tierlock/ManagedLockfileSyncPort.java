package dev.tierlock;

import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.OutcomeUnknownException;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DirectAccess;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The seam between a checkout and the shared lockfile: {@link #hydrate()} brings the shared
 * lockfile into the checkout's local copy, {@link #publish} sends named tier paths back. A {@link
 * LockfileTransaction} calls both under the datastore global lock; fakes plug in here.
 *
 * <p>Implementations are thread-safe, but callers serialise hydrate and publish of one checkout
 * (the transaction does, under the global lock).
 */
public interface ManagedLockfileSyncPort {

  /** {@return how this port reaches the shared lockfile} */
  SyncMode mode();

  /** {@return a description for messages: the datastore and the lockfile's key or path} */
  String describe();

  /** {@return the local lockfile file: the cache copy ({@link SyncMode#REMOTE}) or the shared file itself} */
  Path lockfilePath();

  /** {@return the file the lockfile's own lock is taken on (outside anything synced)} */
  Path lockPath();

  /**
   * Returns the local file of a tier path: where a file to publish is placed (in the cache), or, in
   * {@link SyncMode#DIRECT}, where it is shared.
   *
   * @param path a tier path
   * @return its local file
   */
  Path localPath(TierPath path);

  /**
   * Fetches the shared lockfile into {@link #lockfilePath()}: a conditional read of exactly the
   * lockfile's key (no download when the cached copy is current and untouched), the bytes decoded
   * before the local copy is replaced atomically; a shared lockfile that does not exist removes the
   * local copy. Does nothing in {@link SyncMode#DIRECT}.
   *
   * @return the version seen with its commit lineage, or empty when the shared lockfile does not
   *     exist (or in {@link SyncMode#DIRECT})
   * @throws LockfileFormatException if the shared lockfile does not decode; the local copy is then
   *     unchanged
   * @throws DatastoreException if the read fails; the local copy is then unchanged
   * @throws LocalFileException if the local copy cannot be written
   */
  Optional<LockfileHead> hydrate();

  /**
   * Publishes what {@code request} names: the lockfile content it carries (never the local file),
   * written under its precondition with its commit id and its parent's lineage in the metadata,
   * then the deletions. On success the local copy holds the published bytes. An unanswered lockfile
   * write is resolved by reading the lineage back ({@link LockfileHead}): the write landed when its
   * commit id is in it, did not when the lockfile is still the parent version. In {@link
   * SyncMode#DIRECT} only the deletions are made.
   *
   * @param request what to publish
   * @return {@link PublishOutcome.Published}, or {@link PublishOutcome.Conflict} when the
   *     lockfile's precondition failed (or the read-back proved the write did not land)
   * @throws OutcomeUnknownException if the write went unanswered and reading back failed, or showed
   *     a newer version whose lineage neither includes the write nor proves it absent
   * @throws DatastoreException if the datastore fails otherwise
   * @throws LocalFileException if a local file cannot be written
   */
  PublishOutcome publish(PublishRequest request);

  /**
   * Returns the shared lockfile as this checkout last fetched or published it, when that is known
   * exactly: the base the local copy was changed from. {@link SyncMode#REMOTE} keeps a copy of those
   * bytes in the state directory; {@link SyncMode#DIRECT} has none (empty).
   *
   * @return the lockfile last fetched or published, or empty when unknown
   */
  Optional<Lockfile> lastSeen();

  /**
   * Returns the port over a remote datastore, caching the config tier under {@code cacheRoot}.
   *
   * @param datastore the shared datastore (not closed by the port)
   * @param namespace the namespace keys are bound to, once
   * @param cacheRoot the root of the local cache, laid out like the datastore
   * @param stateDirectory the checkout's state directory: holds the lockfile's lock and what the
   *     last hydrate saw; never synced
   * @param sleeper waits between attempts at the lockfile's local lock
   * @return the port
   */
  static ManagedLockfileSyncPort remote(Datastore datastore, Namespace namespace, Path cacheRoot, Path stateDirectory,
      Sleeper sleeper) {
    return new RemoteLockfileSyncPort(datastore, namespace, cacheRoot, stateDirectory, sleeper);
  }

  /**
   * Returns the direct port of a datastore that implements {@link DirectAccess}: the lockfile is
   * edited where the datastore keeps it, its lock lives in the datastore's lock directory.
   *
   * @param datastore a datastore that implements DirectAccess
   * @param namespace the namespace keys are bound to, once
   * @return the port
   * @throws IllegalArgumentException if {@code datastore} does not implement {@link DirectAccess}
   */
  static ManagedLockfileSyncPort direct(Datastore datastore, Namespace namespace) {
    if (!(datastore instanceof DirectAccess direct)) {
      throw new IllegalArgumentException("Cannot use " + datastore.describe() + " directly: it does not implement DirectAccess");
    }
    return new DirectLockfileSyncPort(datastore, direct, namespace);
  }
}
