package dev.tierlock;

import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What a change sees and does inside {@link LockfileTransaction#run}: a read view of the shared
 * lockfile as just fetched under the transaction's locks (with any change of this checkout still
 * pending re-applied), and an editor whose edits are recorded as a {@link LockfileDelta}. When the
 * change returns, the transaction publishes exactly that delta, rebased name by name onto whatever
 * the shared lockfile holds by then; nothing else is ever written.
 *
 * <p><b>All or nothing.</b> If the change throws, nothing of it is published or kept pending, and
 * no local file changes. A nested {@link #run} that throws undoes its own edits before the
 * exception reaches the code around it.
 *
 * <p><b>Confinement.</b> A context is valid only while its change runs and only on the thread that
 * runs it; any call after the change returned, or from another thread, throws {@link
 * IllegalStateException}. So no write can slip into a run from outside, and none can vanish.
 *
 * <pre>{@code
 * tierlock.transaction().run(tx -> {
 *   LockfileEntry old = tx.entry(name).orElseThrow();
 *   tx.put(name, LockfileEntry.builder("2.0.0", Instant.now()).build());
 *   tx.remove(ExtensionName.of("@acme/legacy"));
 * });
 * }</pre>
 */
public interface TransactionContext {

  /**
   * Returns the entry of {@code name} as this change sees it: fetched, then edited by this run.
   *
   * @param name the extension
   * @return its entry, or empty when absent (or a foreign member)
   * @throws IllegalStateException if called outside the running change or from another thread
   */
  Optional<LockfileEntry> entry(ExtensionName name);

  /**
   * Returns the whole lockfile as this change sees it: the shared lockfile as fetched, with any
   * pending change re-applied and this run's edits so far.
   *
   * @return the lockfile, immutable
   * @throws IllegalStateException if called outside the running change or from another thread
   */
  Lockfile lockfile();

  /**
   * Sets the entry of {@code name} (in place when it exists, appended when new). A put of the entry
   * already there changes nothing.
   *
   * @param name the extension
   * @param entry its new entry
   * @throws LockfileFormatException ({@code foreign_entry}) if the shared lockfile holds {@code name} as a member that is
   *     not a valid entry; nothing changed
   * @throws IllegalStateException if called outside the running change or from another thread
   */
  void put(ExtensionName name, LockfileEntry entry);

  /**
   * Removes the entry of {@code name}, if there is one.
   *
   * @param name the extension
   * @return the entry removed, or empty when there was none (nothing changes)
   * @throws LockfileFormatException ({@code foreign_entry}) if the shared lockfile holds {@code name} as a member that is
   *     not a valid entry; nothing changed
   * @throws IllegalStateException if called outside the running change or from another thread
   */
  Optional<LockfileEntry> remove(ExtensionName name);

  /**
   * Runs {@code nested} inline in this transaction: no lock is taken again and its edits are
   * published with the outer change, once. If it throws, its own edits are undone and the
   * exception propagates.
   *
   * @param nested the nested change
   * @throws IllegalStateException if called outside the running change or from another thread
   */
  void run(Consumer<TransactionContext> nested);

  /**
   * Runs {@code action} holding the checkout's pulled-extensions lock (the lock that serialises
   * local install work on one checkout across threads and processes): taken now, after the global
   * lock, and released when {@code action} returns; joined when this change already holds it.
   *
   * @param action what to run under the lock
   * @param <T> what it returns
   * @return what {@code action} returned
   * @throws LockTimeoutException if the lock was not acquired within its wait (180 s by default)
   * @throws IllegalStateException if called outside the running change or from another thread
   */
  <T> T withPulledExtensionsLock(Supplier<T> action);

  /**
   * Notes that this change stored {@code path} (an archive it pins) and relies on it being in the
   * tier when the lockfile is published. Every change has it checked after a publish that landed
   * (one stat), in every mode, since a collection may have taken the archive in between: {@code
   * store} then stores it again (a failure is a warning). No mode takes the global lease for it.
   *
   * @param path the tier path stored
   * @param store stores it again; runs on the publishing thread
   * @throws IllegalStateException if called outside the running change or from another thread, or
   *     in a context that changes nothing (convergence)
   */
  void requireStored(TierPath path, Runnable store);

  /**
   * {@return whether the running change holds the checkout's pulled-extensions lock (inside {@link
   * #withPulledExtensionsLock}, or in a context opened under it)}
   *
   * @throws IllegalStateException if called outside the running change or from another thread
   */
  boolean holdsPulledExtensionsLock();

  /**
   * {@return whether the change this context belongs to is still running (it has not returned or
   * thrown)} Never throws: callable from any thread, at any time.
   */
  boolean isRunning();
}
