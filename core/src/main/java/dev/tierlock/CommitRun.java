package dev.tierlock;

import dev.tierlock.internal.Deadline;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One batch of runs, under the locks its mode takes: read the pending record, fetch (or, warm and
 * optimistic, start from the cached lockfile), settle the pending change, run each change in queue
 * order on its caller's thread against the lockfile as the changes before it left it, publish the
 * whole in one {@link PublishLoop}, and give every caller its own outcome. A change that throws
 * fails only its caller; a conflict fails only the callers whose own change wrote that name; a
 * publish that fails, or a write left in doubt, fails (or defers) every caller whose change is in
 * it, and the record keeps all of it. Not thread-safe: one per batch, on the leader's thread.
 */
final class CommitRun {

  private static final Logger LOG = LoggerFactory.getLogger(CommitRun.class);

  /**
   * What a batch that must take the lease first carries over: the changes as they ran, made on
   * {@code start} (the fetched lockfile with the pending change replayed).
   */
  record Carried(Lockfile start, boolean warm) {}

  private final TransactionSettings settings;
  private final PendingReplay replays;
  private final String description;

  CommitRun(TransactionSettings settings, String description) {
    this.settings = settings;
    this.replays = new PendingReplay(settings, description);
    this.description = description;
  }

  /**
   * Runs {@code batch} under {@code lease} (or {@link #NO_LEASE}, optimistic).
   *
   * @param carried the changes of an optimistic batch that ran before it had to take the lease, or
   *     null to run the changes now
   * @return what the batch must carry over to a run under the lease (optimistic, no lease, and a
   *     change pins or deletes an archive); else null, every request of the batch ended
   */
  @Nullable Carried run(List<RunRequest> taken, GroupCommit.Turns turns, LockfileTransaction.Resolution resolution,
      Instant deadline, LockLease lease, @Nullable Carried carried) {
    List<RunRequest> batch = new ArrayList<>(taken);
    List<String> warnings = new ArrayList<>();
    settings.pending().unboundNotice().ifPresent(notice -> warn(warnings, notice));
    PendingRecord.Stored stored = settings.pending().read();
    if (stored instanceof PendingRecord.Change earlier) {
      // an earlier run dropped these and died (or its write went unanswered) before its caller heard
      earlier.notices().forEach(notice -> warn(warnings, notice));
    }
    if (stored instanceof PendingRecord.Unreadable
        || stored instanceof PendingRecord.Change c && c.unknown() != null
            && resolution != LockfileTransaction.Resolution.REAPPLY) {
      replays.forgetNotices(warnings);
      for (RunRequest request : batch) {
        request.fail(replays.blocked(stored, null, warnings));
      }
      return null;
    }
    boolean optimistic = lease == NO_LEASE;
    // optimistic with nothing pending: the lockfile this checkout last saw, without a call
    Optional<SyncPort.Fetched> cached = optimistic && stored instanceof PendingRecord.None
        ? settings.port().cached() : Optional.empty();
    SyncPort.Fetched fetched = cached.orElseGet(this::fetch);
    PendingReplay.Replay replay = replays.replay(stored, fetched, resolution, warnings);
    Lockfile start = replay.delta().applyTo(fetched.lockfile());
    List<LockfileConflictException.Conflict> carriedConflicts = new ArrayList<>();
    boolean warm;
    if (carried == null) {
      warm = cached.isPresent();
      // callers that queued while this batch took its locks and fetched join it now
      batch.addAll(turns.more());
      Lockfile from = start;
      for (RunRequest request : batch) {
        turns.apply(request, from);
        if (!request.failIfThrown()) {
          from = request.own().applyTo(from);
        }
      }
      if (optimistic && needsLease(live(batch), fetched.lockfile(), from, deletionsOf(replay, batch), replay)) {
        LOG.debug("An optimistic run on {} pins or deletes an archive: it publishes under the global lease",
            description);
        return new Carried(start, warm);
      }
    } else {
      warm = carried.warm();
      // the changes ran without the lease: an archive they pin anew must still be there now that
      // it is held (no peer deletes one without it); a change whose archive is gone fails
      refuseMissingArchives(live(batch), carried.start());
    }
    List<RunRequest> applied = live(batch);
    if (applied.isEmpty()) {
      // every change threw: nothing of them is published, and a pending change waits for the next run
      return null;
    }
    Lockfile made = carried == null ? start : carried.start();
    Lockfile changed = targetOf(made, applied);
    Set<ExtensionName> own = new LinkedHashSet<>();
    Set<ExtensionName> wanted = new LinkedHashSet<>();
    applied.forEach(r -> {
      own.addAll(r.own().names());
      wanted.addAll(r.wanted().names());
    });
    // a change made on a lockfile that may be stale (the cached one) also wants the names it set to
    // the value it found there: they are checked like the rest, never dropped unseen
    LockfileDelta fence = warm ? fenceOf(wanted, own, changed) : LockfileDelta.EMPTY;
    Lockfile target;
    if (carried == null) {
      target = changed;
    } else {
      // the changes ran on an earlier fetch: rebased name by name, never reverting a peer
      Rebase rebase = Rebase.of(ChangeEditor.deltaOf(made, changed, own).then(fence), made, start);
      carriedConflicts.addAll(rebase.conflicts());
      target = rebase.kept().applyTo(start);
      fence = LockfileDelta.EMPTY;
    }
    List<TierPath> deletions = deletionsOf(replay, applied);
    Set<ExtensionName> live = new LinkedHashSet<>(replay.live());
    live.addAll(wanted);
    Set<ExtensionName> names = new LinkedHashSet<>(replay.delta().names());
    names.addAll(own);
    LockfileDelta delta = ChangeEditor.deltaOf(fetched.lockfile(), target, names);
    if (delta.isEmpty() && !fence.isEmpty() && deletions.isEmpty() && replay.priors().isEmpty()) {
      // nothing to write on the cached lockfile: whether it is still current decides
      SyncPort.Fetched fresh = fetch();
      Rebase check = Rebase.of(fence, fetched.lockfile(), fresh.lockfile());
      carriedConflicts.addAll(check.conflicts());
      fetched = fresh;
      delta = check.kept();
      fence = LockfileDelta.EMPTY;
    }
    Set<ExtensionName> checkOnly = new LinkedHashSet<>(fence.without(delta.names()).names());
    delta = delta.then(fence.without(delta.names()));
    // a name an earlier write in doubt carried is always written as this run wants it, even where
    // that is its value now: if the earlier write lands first, this one is refused and rebased from
    // what it carried, and if this one lands first, the earlier one can never land after it
    delta = delta.then(PublishLoop.Priors.fence(replay.priors(), delta, target));
    if (delta.isEmpty() && deletions.isEmpty() && replay.priors().isEmpty()) {
      if (!(stored instanceof PendingRecord.None)) {
        replays.clearQuietly(warnings);
      }
      List<LockfileConflictException.Conflict> conflicts = new ArrayList<>(replay.conflicts());
      conflicts.addAll(carriedConflicts);
      Ending ending = new Ending(TransactionStatus.NO_CHANGE, 0, fetched.lockfile(), conflicts, warnings, applied);
      applied.forEach(r -> ending.give(r, LockfileDelta.EMPTY, description));
      return null;
    }
    if (!optimistic && !lease.isHeld()) {
      warn(warnings, "The global lock " + settings.globalLock().describe() + " was lost during the transaction;"
          + " publishing stays safe: it is conditional on the version fetched");
    }
    Set<ExtensionName> earlier = stored instanceof PendingRecord.Change c ? c.delta().names() : Set.of();
    PublishLoop loop = new PublishLoop(settings, new Deadline(settings.clock(), deadline), warnings, delta, fetched,
        live, deletions, earlier, replay.conflicts().stream().map(LockfileTransaction::dropNotice).toList(),
        replay.priors());
    loop.deleteOnlyWhile(lease::isHeld);
    loop.checkOnly(checkOnly);
    loop.raceBackoff(optimistic);
    PublishLoop.Ending ending = loop.run();
    List<LockfileConflictException.Conflict> conflicts = new ArrayList<>(replay.conflicts());
    conflicts.addAll(carriedConflicts);
    conflicts.addAll(loop.conflicts());
    conclude(applied, ending, loop, conflicts, fetched, warnings);
    return null;
  }

  /** Returns the requests whose change ran without throwing and that no check failed since. */
  private static List<RunRequest> live(List<RunRequest> batch) {
    return batch.stream().filter(r -> r.applied() && !r.isDone()).toList();
  }

  /** Returns {@code from} with each request's change applied in queue order. */
  private static Lockfile targetOf(Lockfile from, List<RunRequest> requests) {
    Lockfile target = from;
    for (RunRequest r : requests) {
      target = r.own().applyTo(target);
    }
    return target;
  }

  /** Returns, for each wanted name no change altered, its value in {@code target} (a removal when absent). */
  private static LockfileDelta fenceOf(Set<ExtensionName> wanted, Set<ExtensionName> own, Lockfile target) {
    LockfileDelta out = LockfileDelta.EMPTY;
    for (ExtensionName name : wanted) {
      if (!own.contains(name)) {
        out = out.then(target.entry(name).map(e -> LockfileDelta.upsert(name, e))
            .orElseGet(() -> LockfileDelta.removal(name)));
      }
    }
    return out;
  }

  /** Returns the archives to delete after the publish: the replayed change's, then each request's, once each. */
  private static List<TierPath> deletionsOf(PendingReplay.Replay replay, List<RunRequest> requests) {
    List<TierPath> out = new ArrayList<>(replay.deletions());
    for (RunRequest r : requests) {
      if (r.applied()) {
        r.deletions().stream().filter(p -> !out.contains(p)).forEach(out::add);
      }
    }
    return out;
  }

  /**
   * Makes sure every archive a request's change stored is still in the tier, storing it again when
   * a peer deleted it as superseded while the change ran without the lease; a request whose
   * archive cannot be stored again fails, and nothing of it is published. Run under the lease, so
   * no deletion can follow the check before the publish.
   */
  private void refuseMissingArchives(List<RunRequest> requests, Lockfile start) {
    for (RunRequest r : requests) {
      for (var required : r.required().entrySet()) {
        try {
          if (!settings.port().holds(required.getKey())) {
            LOG.info("{} was deleted from {} while a change that pins it ran without the lease; storing it again",
                required.getKey(), description);
            required.getValue().run();
          }
        } catch (RuntimeException e) {
          r.fail(e);
          r.discard();
          break;
        }
      }
    }
  }

  /** The lease an optimistic run holds: none. */
  static final LockLease NO_LEASE = new LockLease() {
    @Override
    public LockInfo info() {
      throw new IllegalStateException("Cannot describe the lease of an optimistic run: it takes none");
    }

    @Override
    public boolean isHeld() {
      return false;
    }

    @Override
    public void release() {}
  };

  /**
   * Returns whether an optimistic batch must publish under the lease: it deletes an archive, or
   * pins one the shared lockfile as fetched ({@code start}) did not pin for that name (a peer
   * deleting that archive as superseded must not interleave with it); a replayed pending change
   * counts as the batch's own.
   */
  private static boolean needsLease(List<RunRequest> batch, Lockfile start, Lockfile target, List<TierPath> deletions,
      PendingReplay.Replay replay) {
    // batch: the requests whose change ran without throwing
    if (!deletions.isEmpty() || batch.stream().anyMatch(r -> !r.required().isEmpty())) {
      return true;
    }
    Set<ExtensionName> names = new LinkedHashSet<>(replay.delta().names());
    batch.forEach(r -> names.addAll(r.own().names()));
    for (ExtensionName name : names) {
      Optional<String> pinned = target.entry(name).flatMap(LockfileEntry::checksum);
      if (pinned.isPresent() && !pinned.equals(start.entry(name).flatMap(LockfileEntry::checksum))) {
        return true;
      }
    }
    return false;
  }

  /** Gives each applied request its outcome from how the publish ended. */
  private void conclude(List<RunRequest> applied, PublishLoop.Ending ending, PublishLoop loop,
      List<LockfileConflictException.Conflict> conflicts, SyncPort.Fetched fetched, List<String> warnings) {
    if (ending instanceof PublishLoop.Ending.Published published) {
      Ending end = new Ending(TransactionStatus.PUBLISHED, loop.attempts(), published.lockfile(), conflicts, warnings,
          applied);
      applied.forEach(r -> end.give(r, applied.size() == 1 ? loop.published() : r.own(), description));
      return;
    }
    replays.forgetNotices(warnings);
    for (LockfileConflictException.Conflict conflict : conflicts) {
      // the worse outcome is the exception; the conflicts travel in its message
      warn(warnings, "Kept another checkout's value of " + conflict.describe() + " (" + LockfileConflictException.CODE
          + ")");
    }
    if (ending instanceof PublishLoop.Ending.Unpublished unpublished) {
      for (RunRequest r : applied) {
        if (settings.policy() == PublishFailurePolicy.THROW) {
          r.fail(withConflicts(new ManagedConfigUnpublishedException(description, loop.left(),
              settings.pending().path(), loop.attempts(), unpublished.cause(), warnings), conflicts, r, applied));
        } else {
          List<String> told = new ArrayList<>(warnings);
          told.add(new ManagedConfigUnpublishedException(description, loop.left(), settings.pending().path(),
              loop.attempts(), unpublished.cause()).getMessage());
          new Ending(TransactionStatus.DEFERRED, loop.attempts(), fetched.lockfile(), conflicts, told, applied)
              .give(r, applied.size() == 1 ? loop.left() : r.own().restrictedTo(loop.left().names()), description);
        }
      }
      if (settings.policy() == PublishFailurePolicy.DEFER) {
        LOG.warn(new ManagedConfigUnpublishedException(description, loop.left(), settings.pending().path(),
            loop.attempts(), unpublished.cause()).getMessage());
      }
      return;
    }
    Throwable cause = ending instanceof PublishLoop.Ending.InFlight inFlight ? inFlight.cause() : null;
    PendingRecord.Stored now = settings.pending().read();
    for (RunRequest r : applied) {
      r.fail(withConflicts(replays.blocked(now, cause, warnings), conflicts, r, applied));
    }
  }

  /** Adds the conflicts on {@code request}'s names to {@code failure}, as suppressed. */
  private RuntimeException withConflicts(RuntimeException failure, List<LockfileConflictException.Conflict> conflicts,
      RunRequest request, List<RunRequest> applied) {
    List<LockfileConflictException.Conflict> its = Ending.conflictsOf(request, conflicts, applied);
    if (!its.isEmpty()) {
      failure.addSuppressed(new LockfileConflictException(description, its, List.of()));
    }
    return failure;
  }

  /** How a batch ended, given to each request in it by what its own change wrote. */
  private record Ending(TransactionStatus status, int attempts, Lockfile lockfile,
      List<LockfileConflictException.Conflict> conflicts, List<String> warnings, List<RunRequest> applied) {

    /**
     * Ends {@code request}: a conflict on a name its change wrote (or on a replayed pending name,
     * for a batch of one) fails it; otherwise it gets the result.
     */
    void give(RunRequest request, LockfileDelta delta, String description) {
      List<LockfileConflictException.Conflict> its = conflictsOf(request, conflicts, applied);
      if (!its.isEmpty()) {
        request.fail(new LockfileConflictException(description, its, warnings));
        return;
      }
      LockfileDelta kept = delta.without(conflicts.stream().map(LockfileConflictException.Conflict::name).toList());
      request.succeed(new TransactionResult(status, kept, attempts, warnings, lockfile));
    }

    /**
     * Returns the conflicts that are {@code request}'s: those on a name its own change wrote, and
     * for the batch's first request also those on names no change of the batch wrote (a re-applied
     * pending change's).
     */
    static List<LockfileConflictException.Conflict> conflictsOf(RunRequest request,
        List<LockfileConflictException.Conflict> conflicts, List<RunRequest> applied) {
      boolean first = !applied.isEmpty() && applied.get(0) == request;
      return conflicts.stream().filter(c -> request.wanted().touches(c.name())
          || first && applied.stream().noneMatch(r -> r.wanted().touches(c.name()))).toList();
    }
  }

  private SyncPort.Fetched fetch() {
    return PendingReplay.fetch(settings.port()::hydrate, description);
  }

  private static void warn(List<String> warnings, String message) {
    LOG.warn(message);
    warnings.add(message);
  }
}
