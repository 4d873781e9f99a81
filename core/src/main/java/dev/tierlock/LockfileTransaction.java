package dev.tierlock;

import dev.tierlock.spi.ObjectVersion;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
 * datastore global lock it then: replays any change a failed publish left pending; fetches the
 * shared lockfile ({@link ManagedLockfileSyncPort#hydrate()}) and refreshes the repository; records
 * the change ahead (so a crash mid-change is recovered); runs the change through a {@link
 * TransactionContext}; publishes what changed, conditional on the version fetched; on a conflict
 * fetches again and re-applies only this change, name by name, never reverting another checkout's
 * change to the same name; clears the record; and releases the lock.
 *
 * <p>With a {@link SyncMode#DIRECT} port (a shared filesystem) the change edits the shared file in
 * place under the same locks, with nothing to fetch or publish and no pending record.
 *
 * <p>Thread-safe: runs on different threads serialise on the global lock. A thread must not start a
 * run inside its own run; nested work joins through {@link TransactionContext#run}.
 */
public final class LockfileTransaction {

  private static final Logger LOG = LoggerFactory.getLogger(LockfileTransaction.class);

  private final TransactionSettings settings;
  private final Set<Thread> running = ConcurrentHashMap.newKeySet();

  LockfileTransaction(TransactionSettings settings) {
    this.settings = settings;
  }

  /** Returns a description for messages: the datastore and the lockfile's key or path. */
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
   * @throws LockTimeoutException if the global lock was not acquired in time; nothing changed
   * @throws ManagedLockfileUnavailableException if the global lock failed otherwise, or the shared
   *     lockfile could not be fetched; nothing changed
   * @throws LockfileConflictException if another checkout changed an entry this change changed, at
   *     the same time; that entry keeps their value, the rest of the change is published
   * @throws ManagedConfigUnpublishedException if the change could not be published (under {@link
   *     PublishFailurePolicy#THROW}); it is kept pending for the next transaction
   * @throws NestedTransactionException if this thread is already running a transaction here
   */
  public TransactionResult run(Consumer<TransactionContext> change) {
    return execute(change, Mode.CHANGE);
  }

  /**
   * Fetches the shared lockfile under the global lock and refreshes the repository, changing
   * nothing; a change left pending by a failed publish is replayed and published first.
   *
   * @return {@link TransactionStatus#NO_CHANGE}, or how publishing a pending change ended
   * @throws LockTimeoutException if the global lock was not acquired in time
   * @throws ManagedLockfileUnavailableException if the shared lockfile could not be fetched
   * @throws ManagedConfigUnpublishedException if a pending change could not be published
   * @throws NestedTransactionException if this thread is already running a transaction here
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
      try (LockLease lease = acquireGlobal()) {
        return settings.port().mode() == SyncMode.DIRECT
            ? runDirect(change)
            : runRemote(change, mode, deadline, lease);
      }
    } finally {
      running.remove(self);
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

  private TransactionResult runRemote(Consumer<TransactionContext> change, Mode mode, Instant deadline, LockLease lease) {
    List<String> warnings = new ArrayList<>();
    Prior prior = readPrior(warnings);
    ObjectVersion version;
    Lockfile fetched;
    try {
      version = settings.port().hydrate().orElse(null);
      fetched = settings.repository().refresh();
    } catch (LockfileFormatException | DatastoreException | LocalFileException | LockfileBusyException e) {
      throw new ManagedLockfileUnavailableException("Cannot fetch the shared lockfile from " + describe(), e);
    }
    LockfileDelta replayed = replay(prior, fetched, warnings);
    Lockfile current = replayed.applyTo(fetched);
    if (prior.exists()) {
      settings.repository().replaceAll(current);
    }
    if (mode == Mode.CHANGE) {
      settings.pending().recordIncomplete(replayed, fetched, List.of(), prior.deletions());
    }
    RunContext context = new RunContext(SyncMode.REMOTE, settings.repository(), fetched, settings.pulledExtensions());
    RuntimeException changeError = runChange(change, context);
    Lockfile now = settings.repository().refresh();
    LockfileDelta delta = LockfileDelta.diff(fetched, now);
    List<TierPath> deletions = union(prior.deletions(), context.deletions());
    if (delta.isEmpty() && deletions.isEmpty()) {
      settings.pending().clear();
      return rethrowOr(changeError, new TransactionResult(TransactionStatus.NO_CHANGE, delta, 0, warnings));
    }
    Set<ExtensionName> live = LockfileDelta.diff(current, now).names();
    if (!lease.isHeld()) {
      warn(warnings, "The global lock " + settings.globalLock().describe()
          + " was lost during the transaction; publishing stays safe: it is conditional on the version fetched");
    }
    Settlement settlement = new Settlement(settings, deadline, warnings, delta, fetched, version, live, deletions);
    return conclude(settlement, settlement.settle(), changeError, warnings);
  }

  /**
   * Maps how the settlement ended to the run's result or exception: a failure keeps the pending
   * record; a conflict on this change's own names is thrown after the rest is settled; the change's
   * own exception wins over both (which are added to it as suppressed).
   */
  private TransactionResult conclude(Settlement settlement, boolean published, @Nullable RuntimeException changeError,
      List<String> warnings) {
    RuntimeException outcome = null;
    TransactionResult result;
    if (published) {
      settings.pending().clear();
      result = new TransactionResult(TransactionStatus.PUBLISHED, settlement.delta(), settlement.attempts(), warnings);
    } else {
      settings.pending().record(settlement.delta(), settlement.base(), List.of(), settlement.deletions());
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
    } catch (LockfileFormatException | LocalFileException e) {
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

  /**
   * What a pending record asks to replay: a delta and the shared entries it was made on (null when
   * unknown), or, for an unreadable record, the local lockfile to recover additions from; and the
   * tier paths to delete once it is published.
   */
  private record Prior(boolean exists, LockfileDelta delta, @Nullable Lockfile base, @Nullable Lockfile unknownLocal,
      List<TierPath> deletions) {
    static final Prior NONE = new Prior(false, LockfileDelta.EMPTY, null, null, List.of());
  }

  private Prior readPrior(List<String> warnings) {
    PendingChange record = settings.pending().read();
    if (record instanceof PendingChange.Recorded recorded) {
      if (!recorded.isIncomplete()) {
        return new Prior(true, recorded.delta(), recorded.base().orElse(null), null, recorded.deletions());
      }
      Lockfile base = recorded.incompleteBase().orElseThrow();
      Optional<Lockfile> local = readLocal(warnings);
      if (local.isEmpty()) {
        warn(warnings, "The local lockfile of an interrupted change is unreadable; replaying the change recorded before it ran");
        return new Prior(true, recorded.delta(), base, null, recorded.deletions());
      }
      return new Prior(true, LockfileDelta.diff(base, local.get()), base, null, recorded.deletions());
    }
    if (record instanceof PendingChange.Unknown unknown) {
      warn(warnings, "Cannot read the pending-change record " + settings.pending().path() + ": " + unknown.reason()
          + "; recovering the local entries the shared lockfile lacks");
      return new Prior(true, LockfileDelta.EMPTY, null, readLocal(warnings).orElse(Lockfile.EMPTY), List.of());
    }
    return Prior.NONE;
  }

  private Optional<Lockfile> readLocal(List<String> warnings) {
    if (!Files.exists(settings.repository().path())) {
      return Optional.empty();
    }
    try {
      return Optional.of(settings.repository().refresh());
    } catch (LockfileFormatException | LocalFileException e) {
      warn(warnings, e.getMessage());
      return Optional.empty();
    }
  }

  private LockfileDelta replay(Prior prior, Lockfile fetched, List<String> warnings) {
    LockfileDelta wanted = prior.delta();
    if (prior.unknownLocal() != null) {
      Map<ExtensionName, LockfileEntry> additions = new LinkedHashMap<>();
      prior.unknownLocal().entries().forEach((name, entry) -> {
        if (!fetched.contains(name)) {
          additions.put(name, entry);
        }
      });
      wanted = LockfileDelta.of(additions, List.of());
    }
    Rebase rebase = Rebase.of(wanted, prior.base(), fetched);
    for (LockfileConflictException.Conflict dropped : rebase.conflicts()) {
      warn(warnings, "Dropped the unpublished change to " + dropped.describe() + ": another checkout changed it since");
    }
    return rebase.kept();
  }

  private static List<TierPath> union(List<TierPath> first, List<TierPath> second) {
    LinkedHashSet<TierPath> all = new LinkedHashSet<>(first);
    all.addAll(second);
    return List.copyOf(all);
  }

  private static void warn(List<String> warnings, String message) {
    LOG.warn(message);
    warnings.add(message);
  }
}
