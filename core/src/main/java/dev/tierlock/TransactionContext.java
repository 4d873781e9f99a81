package dev.tierlock;

import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a change sees while it runs inside a {@link LockfileTransaction}: the lockfile repository
 * (already refreshed from the freshly fetched shared lockfile), the pulled-extensions lock, and the
 * tier paths to delete once the lockfile no longer references them. Every lockfile write the change
 * makes goes through {@link #repository()}; when the change returns, the transaction publishes what
 * it changed.
 *
 * <p><b>Archives.</b> The only tier file a transaction publishes is the lockfile. Archive bytes
 * reach the tier through the archive store ({@code dev.tierlock.archive.ArchiveTransactions}), which
 * writes them create-only and verified <em>during</em> the change, before the entry that pins them
 * is written, so they are in the tier before any lockfile that references them is published; a
 * superseded archive is deleted through {@link #deleteAfterPublish}.
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
   * Deletes {@code path} from the datastore after the lockfile is published (best effort, by a
   * delete conditional on the version seen just before). The deletion is recorded with a change
   * whose publish fails, and made when that change is published. It is skipped, with a warning,
   * when the lockfile being published pins {@code path} (an archive path whose name's entry has
   * the archive's SHA-256 as {@code checksum}), for instance after a peer pinned it again.
   *
   * @throws IllegalArgumentException if {@code path} is the lockfile's own
   * @throws IllegalStateException if this context's change has returned
   */
  void deleteAfterPublish(TierPath path);
}
