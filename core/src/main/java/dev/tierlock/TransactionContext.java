package dev.tierlock;

import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a change sees while it runs inside a {@link LockfileTransaction}: the lockfile repository
 * (already refreshed from the freshly fetched shared lockfile), the pulled-extensions lock, and the
 * tier paths to publish with the lockfile. Every lockfile write the change makes goes through
 * {@link #repository()}; when the change returns, the transaction publishes what it changed.
 *
 * <p>A context is valid only while its change runs, and only on the thread that runs it (the locks
 * it holds belong to that thread). Nested work joins the transaction through {@link #run}: it runs
 * inline, and everything is published once when the outermost change returns.
 */
public interface TransactionContext {

  /** Returns how this transaction reaches the shared lockfile. */
  SyncMode mode();

  /**
   * Returns the checkout's lockfile repository. Its snapshot holds the shared lockfile as fetched
   * for this transaction, with any replayed pending change; write through it.
   */
  LockfileRepository repository();

  /** Returns the shared lockfile as fetched at the start of this transaction (before replay and change). */
  Lockfile fetched();

  /**
   * Runs {@code nested} inline in this transaction (it joins: no lock is taken again, and its
   * changes are published with the outer change, once).
   *
   * @throws IllegalStateException if this context's change has returned
   */
  void run(Consumer<TransactionContext> nested);

  /**
   * Runs {@code action} holding the checkout's pulled-extensions lock: taken now (after the global
   * lock, before the lockfile lock) and released when {@code action} returns, or joined when an
   * enclosing call already holds it.
   *
   * @return what {@code action} returned
   * @throws LockTimeoutException if the lock was not acquired within its wait
   * @throws LockOrderException if the thread holds the lockfile lock
   */
  <T> T withPulledExtensionsLock(Function<PulledExtensionsLock.Section, T> action);

  /**
   * Returns the local file of a tier path: where to place a file that is to be published ({@link
   * SyncMode#REMOTE}: in the cache), or where it is shared ({@link SyncMode#DIRECT}).
   */
  Path localPath(TierPath path);

  /**
   * Publishes {@code path} from its {@link #localPath} create-only, before the lockfile (for
   * content-addressed files: already present means done). In {@link SyncMode#DIRECT} the file is
   * already shared and nothing more happens.
   *
   * @throws IllegalArgumentException if {@code path} is the lockfile's own
   * @throws IllegalStateException if this context's change has returned
   */
  void publishCreateOnly(TierPath path);

  /**
   * Deletes {@code path} from the datastore after the lockfile is published (best effort,
   * conditional on the version seen just before).
   *
   * @throws IllegalArgumentException if {@code path} is the lockfile's own
   * @throws IllegalStateException if this context's change has returned
   */
  void deleteAfterPublish(TierPath path);
}
