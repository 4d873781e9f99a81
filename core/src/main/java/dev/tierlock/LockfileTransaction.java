package dev.tierlock;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnsafeException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes the shared lockfile of one checkout so that no acknowledged change is ever lost and no
 * change is dropped without the caller being told, whatever the interleaving of checkouts, stalls,
 * crashes or faults. Obtain one from {@link Tierlock#transaction()}.
 *
 * <p>{@link #run} does, in order, under the checkout's own transaction lock (an OS lock, {@code
 * <state>/transaction.lock}, so two runs on one checkout never interleave, even when one stalled
 * past its lease) and, as the {@link CommitMode} decides, the datastore global lock:
 *
 * <ol>
 *   <li>read the checkout's pending record; a change whose landing cannot be proven, or a record
 *       that cannot be read, stops here with {@link LockfileOutcomeUnknownException} until the
 *       caller resolves it ({@link #reapplyPending()}, {@link #discardPending()});
 *   <li>fetch the shared lockfile (a conditional read: not-modified costs no download);
 *   <li>settle the pending change: a write in flight is judged by the lineage; what provably did
 *       not land is rebased onto the fetched lockfile, never reverting a peer's newer change;
 *   <li>run the change against a {@link TransactionContext}, which records a {@link
 *       LockfileDelta}; if it throws, nothing of it is published or kept, and it is rethrown;
 *   <li>publish the delta ({@link CommitLoop}): recorded durably first, written conditional on the
 *       version fetched with a fresh commit id and the lineage in metadata, rebased per name and
 *       retried on a newer lockfile, settled by the lineage when an answer is lost;
 *   <li>release the locks in reverse order.
 * </ol>
 *
 * <p>Every datastore takes this one path, a shared filesystem included: there is no unfenced edit
 * in place, and a holder stalled past its lease cannot overwrite a newer version in any mode.
 *
 * <p>Thread-safe: runs on different threads serialise on the locks. A thread must not start a run
 * inside its own run; nested work joins through {@link TransactionContext#run}.
 */
public final class LockfileTransaction {

  private static final Logger LOG = LoggerFactory.getLogger(LockfileTransaction.class);

  private final TransactionSettings settings;
  private final Set<Thread> running = ConcurrentHashMap.newKeySet();
  private final GroupCommit group;
  private final AutoMode auto;
  private final Contention contention = new Contention();

  LockfileTransaction(TransactionSettings settings) {
    this.settings = settings;
    this.auto = new AutoMode(settings.trustAfter());
    String queuedFor = "the runs before this one on " + settings.store().describe();
    this.group = new GroupCommit(settings.clock(), settings.store().describe(), settings.pulledExtensions())
        .onQueued(() -> settings.queueing().accept(queuedFor));
  }

  /** {@return a description for messages: the datastore and the lockfile's key} */
  public String describe() {
    return settings.store().describe();
  }

  /**
   * Runs {@code change} as one transaction and publishes what it changed.
   *
   * @param change the change; reads and edits through its {@link TransactionContext}
   * @return how it ended: {@link TransactionStatus#NO_CHANGE}, {@link TransactionStatus#PUBLISHED},
   *     or {@link TransactionStatus#DEFERRED} under {@link PublishFailurePolicy#DEFER}
   * @throws LockTimeoutException if the global lock or the checkout's transaction lock was not
   *     acquired in time; nothing changed
   * @throws ManagedLockfileUnavailableException if the global lock or the fetch failed for a
   *     passing reason (store unavailable or busy); nothing changed
   * @throws dev.tierlock.spi.DatastoreBusyException if the store's own exclusion on the global
   *     lock's key stayed held through the lock's wait ({@code datastore_busy}: retry later);
   *     nothing changed
   * @throws LockfileFormatException if the shared lockfile does not parse; nothing changed
   * @throws DatastoreUnsafeException if the datastore failed the precondition self-check
   * @throws DatastoreAccessDeniedException if the credentials may not read or write it
   * @throws LockfileConflictException if another checkout changed an entry this change changed, at
   *     the same time; that entry keeps their value, the rest of the change is published
   * @throws ManagedConfigUnpublishedException if the change could not be published (under {@link
   *     PublishFailurePolicy#THROW}); it is kept pending and the next transaction publishes it
   * @throws LockfileOutcomeUnknownException if a write of the change went unanswered and could not
   *     be settled, or a pending change blocks this checkout; the change is kept (whatever the policy)
   * @throws IllegalStateException if this thread is already running a transaction here
   * @throws RuntimeException whatever {@code change} threw; nothing of it was published or kept
   */
  public TransactionResult run(Consumer<TransactionContext> change) {
    return execute(change, Resolution.NONE);
  }

  /**
   * Fetches the shared lockfile into the checkout's cache, changing nothing in the datastore: no
   * global lock, no write, no replay of a pending change (which the next {@link #run} publishes).
   * Holds only the checkout's transaction lock and costs one conditional read.
   *
   * @return {@link TransactionStatus#NO_CHANGE} with the shared lockfile as fetched, and a warning
   *     when a pending change is recorded (saying whether the next transaction settles it, or every
   *     transaction fails until it is re-applied or discarded)
   * @throws LockTimeoutException if the checkout's transaction lock was not acquired in time
   * @throws ManagedLockfileUnavailableException if the shared lockfile could not be fetched
   * @throws LockfileFormatException if it does not parse
   * @throws IllegalStateException if this thread is already running a transaction here
   */
  public TransactionResult refresh() {
    Thread self = Thread.currentThread();
    if (!running.add(self)) {
      throw CheckoutLock.nestedTransaction(describe());
    }
    try (CheckoutLock.Held held = settings.checkoutLock().acquire(deadline(), describe())) {
      List<String> warnings = new ArrayList<>();
      settings.pending().unboundNotice().ifPresent(notice -> warn(warnings, notice));
      settings.pending().view(settings.pending().read()).ifPresent(p -> warn(warnings,
          "A change of this checkout is pending (" + p.describe() + "); " + (p.blocksTransactions()
              ? "every transaction on this checkout fails until it is re-applied or discarded"
              : "the next transaction settles it")));
      LockfileStore.Fetched fetched = CommitRun.fetch(settings.store(), LockfileStore.Fetch.KEEP, describe());
      return new TransactionResult(TransactionStatus.NO_CHANGE, LockfileDelta.EMPTY, 0, warnings, fetched.lockfile());
    } finally {
      running.remove(self);
    }
  }

  /**
   * Returns the change of this checkout that is recorded but not known to be published, if any.
   * Reads one local file; takes no lock.
   *
   * @return the pending change, or empty
   */
  public Optional<PendingChange> pending() {
    return settings.pending().view(settings.pending().read());
  }

  /**
   * Resolves a pending change by re-applying it, in a transaction like {@link #run}: each name is
   * rebased onto the shared lockfile as it is now, so a name another checkout changed to another
   * value since the change was made is left alone (it is reported as a conflict), and a name still
   * at the value the change was made on is set again; a write provably landed is not applied twice.
   * For a change whose landing could not be proven, that is the caller's decision the lineage
   * could not make: if the change did land and another checkout then set one of its names back to
   * the old value, re-applying sets it again. Look at the shared lockfile first when that matters. This is how an {@link PendingChange.State#OUTCOME_UNKNOWN} change is
   * published after all; for any other pending change it is what the next {@link #run} does anyway.
   *
   * @return how it ended ({@link TransactionStatus#NO_CHANGE} when nothing is pending or everything
   *     is already in the shared lockfile)
   * @throws LockfileOutcomeUnknownException if the record cannot be read (only discarding clears
   *     it), or a write of the re-applied change went unanswered again
   * @throws LockfileConflictException if another checkout changed some of its entries since; those
   *     keep their value, the rest is published
   * @throws TierlockException as {@link #run} does
   */
  public TransactionResult reapplyPending() {
    return execute(context -> { }, Resolution.REAPPLY);
  }

  /**
   * Resolves a pending change by dropping it: the record is deleted under the checkout's
   * transaction lock and nothing is published. Check the shared lockfile first: a change whose
   * outcome was unknown may be in it, or not.
   *
   * @return what was discarded, or empty when nothing was pending
   * @throws LockTimeoutException if the checkout's transaction lock was not acquired in time
   * @throws LocalFileException if the record cannot be deleted
   */
  public Optional<PendingChange> discardPending() {
    try (CheckoutLock.Held held = settings.checkoutLock().acquire(deadline(), describe())) {
      Optional<PendingChange> view = settings.pending().view(settings.pending().read());
      if (view.isPresent()) {
        settings.pending().discard();
        LOG.warn("Discarded the pending lockfile change of {}: {}", describe(), view.get().describe());
      }
      return view;
    }
  }

  /** Returns the file of this checkout's pending-change record. */
  Path pendingRecord() {
    return settings.pending().path();
  }

  /** Whether this run resolves a pending change the caller decided on. */
  enum Resolution {
    NONE,
    REAPPLY
  }

  private Instant deadline() {
    return settings.clock().instant().plus(settings.deadline());
  }

  private TransactionResult execute(Consumer<TransactionContext> change, Resolution resolution) {
    Thread self = Thread.currentThread();
    if (!running.add(self)) {
      throw CheckoutLock.nestedTransaction(describe());
    }
    try {
      GroupCommit.Request request = new GroupCommit.Request(change, deadline());
      if (settings.grouped() && resolution == Resolution.NONE) {
        return group.submit(request, (batch, turns) -> runBatch(batch, turns, resolution));
      }
      runBatch(List.of(request), (r, from) -> r.apply(from, settings.pulledExtensions()), resolution);
      return request.outcome();
    } finally {
      running.remove(self);
    }
  }

  /**
   * Runs one batch under the locks its mode takes: locked, the global lease then the checkout lock;
   * optimistic and auto, the checkout lock alone, then, when the batch yields (auto: the lockfile's
   * head is not trusted; either: the commit lost races in a row, or met the lease held), the lease
   * and the checkout lock again, carrying the changes as they ran.
   */
  private void runBatch(List<GroupCommit.Request> batch, GroupCommit.Turns turns, Resolution resolution) {
    Instant deadline = batch.get(0).deadline;
    CommitRun run = new CommitRun(settings, describe(), auto, contention);
    CommitRun.Carried carried = null;
    if (settings.lockless()) {
      giveTurn(deadline);
      try (CheckoutLock.Held held = settings.checkoutLock().acquire(deadline, describe())) {
        carried = run.run(batch, turns, resolution, deadline, CommitLoop.NO_LEASE, null);
      }
      if (carried == null) {
        return;
      }
    }
    try (DistributedLock.Held lease = acquireGlobal();
        CheckoutLock.Held held = settings.checkoutLock().acquire(deadline, describe())) {
      run.run(batch, turns, resolution, deadline, lease, carried);
    }
  }

  /**
   * Waits the turn this checkout gives its peers before a batch without the lease, when it has
   * seen contention ({@link Contention}); within the deadline.
   *
   * @throws InterruptedOperationException if interrupted while waiting (nothing was read or sent)
   */
  private void giveTurn(Instant deadline) {
    Instant now = settings.clock().instant();
    Duration wait = contention.turnAt(now, settings::nextUnit);
    Duration left = Duration.between(now, deadline);
    if (wait.isZero() || left.isNegative()) {
      return;
    }
    try {
      settings.sleeper().sleep(wait.compareTo(left) > 0 ? left : wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedOperationException("Cannot run a transaction on " + describe(), e);
    }
  }

  private DistributedLock.Held acquireGlobal() {
    try {
      return settings.globalLock().acquire();
    } catch (LockTimeoutException | IllegalStateException | InterruptedOperationException | DatastoreUnsafeException
        | DatastoreAccessDeniedException | DatastoreBusyException e) {
      // busy: the store's own exclusion on the lease's key stayed held (retry later), not an outage
      throw e;
    } catch (RuntimeException e) {
      throw new ManagedLockfileUnavailableException("Cannot acquire " + settings.globalLock().describe(), e);
    }
  }

  /** The start of every warning that says a pending change was dropped for a peer's newer value. */
  static final String DROPPED = "Dropped the unpublished change to ";

  /** Returns the notice that {@code conflict}'s name of an earlier run's change was dropped. */
  static String dropNotice(LockfileConflictException.Conflict conflict) {
    return DROPPED + conflict.describe() + ": another checkout changed it since";
  }

  /** Returns the warnings of {@code warnings} that say a pending change was dropped. */
  static List<String> dropNotices(List<String> warnings) {
    return warnings.stream().filter(w -> w.startsWith(DROPPED)).toList();
  }

  private static void warn(List<String> warnings, String message) {
    LOG.warn(message);
    warnings.add(message);
  }
}
