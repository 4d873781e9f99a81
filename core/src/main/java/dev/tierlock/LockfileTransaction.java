package dev.tierlock;

import dev.tierlock.spi.DatastoreException;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes the shared lockfile of one checkout so that no acknowledged change is ever lost, whatever
 * the interleaving of checkouts, stalls or faults. Obtain one from {@link Tierlock#transaction()}.
 *
 * <p>{@link #run} stages nothing itself: do downloads and extraction before calling it. Under the
 * datastore global lock and the checkout's own transaction lock it then: reads any change left
 * pending; fetches the shared lockfile ({@link ManagedLockfileSyncPort#hydrate()}) and refreshes
 * the repository; replays what of the pending change is safe to replay; records the change ahead
 * (so a crash mid-change is recovered); runs the change through a {@link TransactionContext};
 * records the whole change with the commit id of the write about to be sent and publishes it, as
 * computed in memory, conditional on the version fetched; on a conflict fetches again and
 * re-applies only this change, name by name, never reverting another checkout's change; clears the
 * record; and releases the locks. A write whose answer is lost is judged by the commit lineage the
 * shared lockfile carries ({@link LockfileHead}), never by re-applying it.
 *
 * <p>The checkout's transaction lock (an OS file lock, {@code <state>/transaction.lock}) keeps two
 * runs on one checkout (threads, {@link Tierlock} instances or processes) from interleaving, even
 * when one of them stalled past the global lease. {@link #refresh()} with nothing pending takes
 * only that lock and costs one conditional read.
 *
 * <p>With a {@link SyncMode#DIRECT} port (a shared filesystem) the change edits the shared file in
 * place under the same locks, with nothing to fetch or publish and no pending record.
 *
 * <p>Thread-safe: runs on different threads serialise on the locks. A thread must not start a run
 * inside its own run; nested work joins through {@link TransactionContext#run}.
 */
public final class LockfileTransaction {

  private static final Logger LOG = LoggerFactory.getLogger(LockfileTransaction.class);

  private final TransactionSettings settings;
  private final Set<Thread> running = ConcurrentHashMap.newKeySet();

  LockfileTransaction(TransactionSettings settings) {
    this.settings = settings;
  }

  /** {@return a description for messages: the datastore and the lockfile's key or path} */
  public String describe() {
    return settings.port().describe();
  }

  /**
   * Runs {@code change} as one transaction and publishes what it changed.
   *
   * <p>If {@code change} throws, what it already wrote is still settled (published or kept
   * pending) and then its exception is rethrown, with any publish failure added as suppressed.
   *
   * @param change the change; writes through {@link TransactionContext#repository()}
   * @return how it ended: {@link TransactionStatus#NO_CHANGE}, {@link TransactionStatus#PUBLISHED},
   *     or {@link TransactionStatus#DEFERRED} under {@link PublishFailurePolicy#DEFER}
   * @throws LockTimeoutException if the global lock or the checkout's transaction lock was not
   *     acquired in time; nothing changed
   * @throws ManagedLockfileUnavailableException if the global lock failed otherwise, or the shared
   *     lockfile could not be fetched; nothing changed
   * @throws LockfileConflictException if another checkout changed an entry this change changed, at
   *     the same time; that entry keeps their value, the rest of the change is published
   * @throws ManagedConfigUnpublishedException if the change could not be published (under {@link
   *     PublishFailurePolicy#THROW}); it is kept pending for the next transaction
   * @throws LockfileOutcomeUnknownException if a write of the change went unanswered and whether it
   *     landed cannot be proven; the change is not kept pending (whatever the policy)
   * @throws NestedTransactionException if this thread is already running a transaction on this
   *     checkout
   */
  public TransactionResult run(Consumer<TransactionContext> change) {
    return execute(change, Mode.CHANGE);
  }

  /**
   * Fetches the shared lockfile and refreshes the repository, changing nothing; a change left
   * pending by a failed publish is replayed and published first (under the global lock). With
   * nothing pending ({@link SyncMode#REMOTE}) it holds only the checkout's transaction lock and
   * costs one conditional read.
   *
   * @return {@link TransactionStatus#NO_CHANGE}, or how publishing a pending change ended
   * @throws LockTimeoutException if a lock was not acquired in time
   * @throws ManagedLockfileUnavailableException if the shared lockfile could not be fetched
   * @throws ManagedConfigUnpublishedException if a pending change could not be published
   * @throws LockfileOutcomeUnknownException as {@link #run} does
   * @throws NestedTransactionException if this thread is already running a transaction on this
   *     checkout
   */
  public TransactionResult refresh() {
    return execute(context -> { }, Mode.READ_ONLY);
  }

  private enum Mode {
    CHANGE,
    READ_ONLY
  }

  private TransactionResult execute(Consumer<TransactionContext> change, Mode mode) {
    Thread self = Thread.currentThread();
    if (!running.add(self)) {
      throw new NestedTransactionException(describe());
    }
    try {
      Instant deadline = settings.clock().instant().plus(settings.deadline());
      if (mode == Mode.READ_ONLY && settings.port().mode() == SyncMode.REMOTE) {
        Optional<TransactionResult> refreshed = refreshWithoutLease(deadline);
        if (refreshed.isPresent()) {
          return refreshed.get();
        }
      }
      try (LockLease lease = acquireGlobal();
          CheckoutLock.Held checkout = settings.checkoutLock().acquire(deadline, describe())) {
        return settings.port().mode() == SyncMode.DIRECT
            ? runDirect(change)
            : runRemote(change, mode, deadline, lease);
      }
    } finally {
      running.remove(self);
    }
  }

  /**
   * Refreshes under the checkout's transaction lock alone, when nothing is pending: it writes only
   * the local cache, which no one else writes while the lock is held.
   *
   * @return the result, or empty when something is pending (then the lock is released again)
   */
  private Optional<TransactionResult> refreshWithoutLease(Instant deadline) {
    try (CheckoutLock.Held checkout = settings.checkoutLock().acquire(deadline, describe())) {
      if (!(settings.pending().read() instanceof PendingChange.None)) {
        return Optional.empty();
      }
      fetch();
      return Optional.of(new TransactionResult(TransactionStatus.NO_CHANGE, LockfileDelta.EMPTY, 0, List.of()));
    }
  }

  private LockLease acquireGlobal() {
    try {
      return settings.globalLock().acquire();
    } catch (LockTimeoutException | LockOrderException | InterruptedOperationException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new ManagedLockfileUnavailableException("Cannot acquire " + settings.globalLock().describe(), e);
    }
  }

  /** The shared lockfile as fetched: its version (null when absent) and content. */
  private record Fetched(@Nullable LockfileHead head, Lockfile lockfile) {}

  private Fetched fetch() {
    try {
      LockfileHead head = settings.port().hydrate().orElse(null);
      return new Fetched(head, settings.repository().refresh());
    } catch (DatastoreException | LocalFileException | LockfileBusyException e) {
      // A lockfile that does not parse is not a passing fault: LockfileFormatException reaches the
      // caller as it is, naming the file and position, and nothing was changed.
      throw new ManagedLockfileUnavailableException("Cannot fetch the shared lockfile from " + describe(), e);
    }
  }

  private TransactionResult runRemote(Consumer<TransactionContext> change, Mode mode, Instant deadline, LockLease lease) {
    List<String> warnings = new ArrayList<>();
    PendingRecovery recovery = new PendingRecovery(settings, warnings);
    PendingRecovery.Prior prior = recovery.read();
    Fetched fetched = fetch();
    PendingRecovery.Replay replay = recovery.replay(prior, fetched.head(), fetched.lockfile());
    LockfileDelta replayed = replay.delta();
    Lockfile current = replayed.applyTo(fetched.lockfile());
    if (!replayed.isEmpty()) {
      settings.repository().replaceAll(current);
    }
    if (mode == Mode.CHANGE || prior.exists()) {
      settings.pending().recordIncomplete(replayed, fetched.lockfile(), replay.deletions());
    }
    RunContext context = new RunContext(SyncMode.REMOTE, settings.repository(), fetched.lockfile(),
        settings.pulledExtensions());
    RuntimeException changeError = runChange(change, context);
    Lockfile now = settings.repository().refresh();
    LockfileDelta delta = LockfileDelta.diff(fetched.lockfile(), now);
    List<TierPath> deletions = PendingRecovery.union(replay.deletions(), context.deletions());
    if (delta.isEmpty() && deletions.isEmpty()) {
      settings.pending().clear();
      return rethrowOr(changeError, new TransactionResult(TransactionStatus.NO_CHANGE, delta, 0, warnings));
    }
    Set<ExtensionName> live = LockfileDelta.diff(current, now).names();
    if (!lease.isHeld()) {
      warn(warnings, "The global lock " + settings.globalLock().describe()
          + " was lost during the transaction; publishing stays safe: it is conditional on the version fetched");
    }
    Settlement settlement = new Settlement(settings, deadline, warnings, delta, fetched.lockfile(), fetched.head(), live,
        deletions);
    return conclude(settlement, settlement.settle(), changeError, warnings);
  }

  /**
   * Maps how the settlement ended to the run's result or exception: a failure keeps the pending
   * record the settlement left (an unknown outcome clears it: nothing of it may be replayed); a
   * conflict on this change's own names is thrown after the rest is settled; the change's
   * own exception wins over both (which are added to it as suppressed).
   */
  private TransactionResult conclude(Settlement settlement, boolean published, @Nullable RuntimeException changeError,
      List<String> warnings) {
    RuntimeException outcome = null;
    TransactionResult result;
    if (published) {
      settings.pending().clear();
      result = new TransactionResult(TransactionStatus.PUBLISHED, settlement.delta(), settlement.attempts(), warnings);
    } else if (settlement.outcomeUnknown()) {
      settings.pending().clear();
      outcome = settlement.failure();
      result = new TransactionResult(TransactionStatus.DEFERRED, settlement.delta(), settlement.attempts(), warnings);
    } else {
      ManagedConfigUnpublishedException unpublished = new ManagedConfigUnpublishedException(describe(),
          settlement.delta(), settings.pending().path(), settlement.attempts(), settlement.failure());
      if (changeError != null || settings.policy() == PublishFailurePolicy.THROW) {
        outcome = unpublished;
      } else {
        warn(warnings, unpublished.getMessage());
      }
      result = new TransactionResult(TransactionStatus.DEFERRED, settlement.delta(), settlement.attempts(), warnings);
    }
    if (!settlement.conflicts().isEmpty()) {
      LockfileConflictException conflict = new LockfileConflictException(describe(), settlement.conflicts());
      if (outcome != null) {
        conflict.addSuppressed(outcome);
      }
      outcome = conflict;
    }
    if (changeError != null) {
      if (outcome != null) {
        changeError.addSuppressed(outcome);
      }
      throw changeError;
    }
    if (outcome != null) {
      throw outcome;
    }
    return result;
  }

  private TransactionResult runDirect(Consumer<TransactionContext> change) {
    Lockfile before;
    try {
      before = settings.repository().refresh();
    } catch (LocalFileException e) {
      throw new ManagedLockfileUnavailableException("Cannot read the shared lockfile " + describe(), e);
    }
    RunContext context = new RunContext(SyncMode.DIRECT, settings.repository(), before, settings.pulledExtensions());
    RuntimeException changeError = runChange(change, context);
    Lockfile after = settings.repository().refresh();
    LockfileDelta delta = LockfileDelta.diff(before, after);
    List<String> warnings = new ArrayList<>();
    List<TierPath> unpinned = Settlement.unpinned(context.deletions(), after);
    context.deletions().stream().filter(p -> !unpinned.contains(p)).forEach(p -> warn(warnings, "Kept " + p + " in "
        + describe() + ": the lockfile pins it again"));
    if (!unpinned.isEmpty()) {
      PublishOutcome outcome = settings.port().publish(PublishRequest.pathsOnly().withDeletions(unpinned));
      if (outcome instanceof PublishOutcome.Published published) {
        published.notDeleted().forEach(p -> warn(warnings, "Cannot delete " + p + " from " + describe()
            + ": it changed in between or the store failed; it is left in place"));
      }
    }
    TransactionStatus status = delta.isEmpty() && !context.hasPaths() ? TransactionStatus.NO_CHANGE : TransactionStatus.PUBLISHED;
    return rethrowOr(changeError, new TransactionResult(status, delta, 0, warnings));
  }

  private static @Nullable RuntimeException runChange(Consumer<TransactionContext> change, RunContext context) {
    try {
      change.accept(context);
      return null;
    } catch (RuntimeException e) {
      return e;
    } catch (Error e) {
      throw e;
    } finally {
      context.close();
    }
  }

  private static TransactionResult rethrowOr(@Nullable RuntimeException error, TransactionResult result) {
    if (error != null) {
      throw error;
    }
    return result;
  }

  private static void warn(List<String> warnings, String message) {
    LOG.warn(message);
    warnings.add(message);
  }
}
