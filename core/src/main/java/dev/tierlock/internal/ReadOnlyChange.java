package dev.tierlock.internal;

import dev.tierlock.TransactionContext;

/**
 * A change that may not write the lockfile, holding the checkout's pulled-extensions lock: what a
 * convergence pass swaps files in. Its {@link #context()} reads a lockfile it was given (no request)
 * and refuses every edit; {@link #finish()} ends the change (so what was applied in it may be
 * committed) while the lock stays held until {@link #close()}. Confined to the thread that opened
 * it. Internal.
 */
public interface ReadOnlyChange extends AutoCloseable {

  /** {@return the context of the change, valid until {@link #finish()}} */
  TransactionContext context();

  /** Ends the change; the lock stays held. Idempotent. */
  void finish();

  /** Ends the change and releases the lock. Idempotent. */
  @Override
  void close();
}
