package dev.tierlock.internal;

import dev.tierlock.TierPath;
import dev.tierlock.TransactionContext;

/**
 * What the archive store asks of a running transaction beyond the public editor: deleting a tier
 * path once the lockfile that no longer pins it is published. Implemented by every context
 * Tierlock hands to a change; internal.
 */
public interface TransactionHooks {

  /**
   * Deletes {@code path} from the datastore after the lockfile is published (best effort, by a
   * delete conditional on the version seen just before); recorded with the change if its publish
   * fails, and skipped, with a warning, while the lockfile being published pins it.
   *
   * @param path the tier path, never the lockfile's own
   * @throws IllegalArgumentException if {@code path} is the lockfile's own
   * @throws IllegalStateException if called outside the running change or from another thread
   */
  void deleteAfterPublish(TierPath path);

  /**
   * Notes that the change stored {@code path} (an archive it pins) and relies on it being in the
   * tier when the lockfile is published. A change that ran without the global lease (optimistic)
   * has that checked under the lease before its publish: a peer may have deleted the archive as
   * superseded in between, and {@code store} then stores it again (a failure fails the change).
   *
   * @param path the tier path stored
   * @param store stores it again; runs on the publishing thread, under the global lease
   * @throws IllegalStateException if called outside the running change or from another thread
   */
  void requireStored(TierPath path, Runnable store);

  /**
   * {@return whether the running change holds the checkout's pulled-extensions lock (inside {@link
   * TransactionContext#withPulledExtensionsLock})}
   *
   * @throws IllegalStateException if called outside the running change or from another thread
   */
  boolean holdsPulledExtensionsLock();

  /**
   * {@return whether the change this context belongs to is still running (it has not returned or
   * thrown)} Never throws: callable from any thread, at any time.
   */
  boolean isRunning();

  /**
   * Returns the hooks of a context Tierlock created.
   *
   * @param context a context passed to a change by {@link dev.tierlock.LockfileTransaction#run}
   * @return its hooks
   * @throws IllegalArgumentException if {@code context} was not created by Tierlock
   */
  static TransactionHooks of(TransactionContext context) {
    if (context instanceof TransactionHooks hooks) {
      return hooks;
    }
    throw new IllegalArgumentException("Cannot use " + context + " as a Tierlock transaction: it was not created by"
        + " LockfileTransaction.run");
  }
}
