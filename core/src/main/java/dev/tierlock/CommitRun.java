package dev.tierlock;

import dev.tierlock.internal.Deadline;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
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
 * One batch of runs under the locks its mode takes: read the pending record, fetch (or, warm and
 * optimistic, start from the cached lockfile), replay the pending commit, run each change in queue
 * order on its caller's thread against the lockfile as the changes before it left it, hand the
 * whole to one {@link CommitLoop}, and give every caller its own outcome. A change that throws
 * fails only its caller; a conflict fails only the callers whose own change wrote that name; a
 * commit that does not land fails (or defers) every caller whose change is in it, and the record
 * keeps all of it. Not thread-safe: one per batch, on the leader's thread.
 */
final class CommitRun {

  private static final Logger LOG = LoggerFactory.getLogger(CommitRun.class);

  /**
   * What a batch that yields to the lease carries over to its run under it: the changes as they
   * ran, made on {@code start} (the lockfile they ran on), or nothing when they have not run.
   *
   * @param start the lockfile the changes ran on, or {@code null} when they have not run yet
   * @param warm whether that lockfile was the cached one, which may be stale
   */
  record Carried(@Nullable Lockfile start, boolean warm) {
    /** The batch yields before its changes ran: they run under the lease. */
    static final Carried NOT_RUN = new Carried(null, false);
  }

  /**
   * What the pending record contributes to a run.
   *
   * @param delta what is left of the recorded commit, rebased onto the fetched lockfile
   * @param live its names, when the caller re-applies it (a conflict on them then fails the run)
   * @param conflicts the names a re-applied commit could not keep
   * @param priors its writes that may still land
   */
  private record Replay(LockfileDelta delta, Set<ExtensionName> live,
      List<LockfileConflictException.Conflict> conflicts, List<Commit.Prior> priors) {
    static final Replay NONE = new Replay(LockfileDelta.EMPTY, Set.of(), List.of(), List.of());
  }

  /**
   * The commit a batch hands to the loop.
   *
   * @param delta what to write (checked names included)
   * @param base the lockfile it is made on
   * @param checkOnly names carried only to have them checked
   * @param live names the callers touched
   * @param conflicts found before the loop, on names the changes carried over from a stale view
   */
  private record Plan(LockfileDelta delta, LockfileStore.Fetched base, Set<ExtensionName> checkOnly,
      Set<ExtensionName> live, List<LockfileConflictException.Conflict> conflicts) {}

  private final TransactionSettings settings;
  private final LockfileStore store;
  private final String description;
  private final AutoMode auto;
  private final Contention contention;

  CommitRun(TransactionSettings settings, String description, AutoMode auto, Contention contention) {
    this.settings = settings;
    this.store = settings.store();
    this.description = description;
    this.auto = auto;
    this.contention = contention;
  }

  /**
   * Runs {@code taken} under {@code lease} (or {@link CommitLoop#NO_LEASE}: optimistic or auto).
   *
   * @param carried what a batch that yielded carries over to its run under the lease, or null
   * @return what the batch carries over to a run under the lease when it yields (without the lease:
   *     auto mode and the lockfile's head is not trusted, or the commit lost races in a row or met
   *     the lease held); else null, every request of the batch ended
   */
  @Nullable Carried run(List<GroupCommit.Request> taken, GroupCommit.Turns turns,
      LockfileTransaction.Resolution resolution, Instant deadline, DistributedLock.Held lease, @Nullable Carried carried) {
    List<GroupCommit.Request> batch = new ArrayList<>(taken);
    List<String> warnings = new ArrayList<>();
    PendingRecord.Stored stored = readPending(warnings);
    if (stored instanceof PendingRecord.Unreadable || stored instanceof PendingRecord.Recorded r
        && r.commit().unknown() != null && resolution != LockfileTransaction.Resolution.REAPPLY) {
      forgetNotices(warnings);
      batch.forEach(request -> request.fail(blocked(stored, null, warnings)));
      return null;
    }
    boolean optimistic = lease == CommitLoop.NO_LEASE;
    // without the lease and nothing pending: the lockfile this checkout last saw, without a call
    Optional<LockfileStore.Fetched> cached = optimistic && stored instanceof PendingRecord.None
        ? store.cached() : Optional.empty();
    LockfileStore.Fetched fetched = cached.orElseGet(this::fetch);
    boolean untrusted = settings.mode() == CommitMode.AUTO && !auto.trusts(fetched.head(), store.metadataCapacity());
    if (optimistic && untrusted) {
      LOG.debug("The shared lockfile of {} has had a version without Tierlock's commit metadata within its last {}"
          + " versions: the batch runs under the global lease", description, auto.trustAfter());
      return Carried.NOT_RUN;
    }
    Replay replay = replay(stored, fetched, resolution, warnings);
    if (untrusted) {
      replay = withReverted(replay, fetched, warnings);
    }
    Lockfile start = replay.delta().applyTo(fetched.lockfile());
    Carried ran = carried != null && carried.start() != null ? carried : null;
    boolean warm = ran != null ? ran.warm() : cached.isPresent();
    if (ran == null) {
      runChanges(batch, turns, start);
    }
    List<GroupCommit.Request> applied = live(batch);
    if (applied.isEmpty()) {
      // every change threw: nothing of them is published, and a pending commit waits for the next run
      return null;
    }
    Plan plan = plan(applied, replay, fetched, start, warm, ran);
    if (plan.delta().isEmpty() && replay.priors().isEmpty()) {
      noChange(stored, applied, replay, plan, warnings);
      return null;
    }
    return publish(stored, applied, replay, plan, lease, deadline, warnings, new Carried(start, warm));
  }

  /**
   * Adds to {@code replay}, in auto mode on a first look at an untrusted head, what this checkout's
   * recent commits without the lease set and the foreign version set back ({@link AutoMode#reverted}),
   * with a warning.
   */
  private Replay withReverted(Replay replay, LockfileStore.Fetched fetched, List<String> warnings) {
    if (!auto.keepsAny()) {
      return replay;
    }
    LockfileDelta again = auto.reverted(fetched.lockfile(), settings.clock().instant())
        .without(replay.delta().names());
    if (again.isEmpty()) {
      return replay;
    }
    warn(warnings, "The shared lockfile of " + description + " was written without Tierlock's commit metadata (by"
        + " another tool) over this checkout's recent commits, setting " + again.names() + " back to values those"
        + " commits had replaced; writing them again. If that writer meant to set them back, set them again with it");
    return new Replay(replay.delta().then(again), replay.live(), replay.conflicts(), replay.priors());
  }

  /** Reads the pending record, telling what an earlier run dropped and could not tell its caller. */
  private PendingRecord.Stored readPending(List<String> warnings) {
    settings.pending().unboundNotice().ifPresent(notice -> warn(warnings, notice));
    PendingRecord.Stored stored = settings.pending().read();
    if (stored instanceof PendingRecord.Recorded earlier) {
      // an earlier run dropped these and died (or its write went unanswered) before its caller heard
      earlier.commit().notices().forEach(notice -> warn(warnings, notice));
    }
    return stored;
  }

  /**
   * Replays a pending commit against the fetched lockfile: its writes that may have landed are
   * judged by the lineage (landed: nothing to re-apply; unprovable: the record says so and the run
   * stops, unless the caller re-applies); the rest is rebased, dropping names a peer changed since.
   *
   * @throws LockfileOutcomeUnknownException if a write of the commit cannot be proven either way
   */
  private Replay replay(PendingRecord.Stored stored, LockfileStore.Fetched fetched,
      LockfileTransaction.Resolution resolution, List<String> warnings) {
    if (!(stored instanceof PendingRecord.Recorded recorded)) {
      return Replay.NONE;
    }
    Commit change = recorded.commit();
    boolean reapply = resolution == LockfileTransaction.Resolution.REAPPLY;
    LockfileHead now = fetched.head();
    Commit.Judgement judged = store.judge(change.attempt(), change.priors(), now);
    if (judged.attempt() instanceof Landing.Landed) {
      LOG.debug("The pending commit's write to {} landed", description);
      return new Replay(LockfileDelta.EMPTY, Set.of(), List.of(), List.of());
    }
    Lockfile base = change.base();
    List<Commit.Prior> priors = new ArrayList<>(judged.open());
    Commit.Attempt unknown = judged.unprovable();
    LockfileDelta priorLanded = judged.priorLanded();
    if (priorLanded != null) {
      // an earlier write of the commit landed (so the latest did not): rebase from what it carried
      base = base == null ? null : priorLanded.applyTo(base);
    } else if (change.attempt() != null) {
      LOG.debug("The pending commit's write {} to {}: {}", change.attempt().commitId(), description, judged.attempt());
      if (judged.attempt() instanceof Landing.Unknown) {
        unknown = change.attempt();
      } else if (judged.attempt() instanceof Landing.NotYet) {
        // it may still arrive: kept in doubt beside the write this run sends
        priors.add(new Commit.Prior(new Commit.Attempt(change.attempt().commitId(), now), change.delta()));
      }
    }
    if (unknown != null && !reapply) {
      Commit marked = change.unknown("its write (commit " + unknown.commitId() + ") went unanswered and the shared"
          + " lockfile has moved on (now " + (now == null ? "absent" : "version " + now.version().value())
          + ") without a lineage that shows whether it landed");
      settings.pending().record(marked);
      throw blocked(new PendingRecord.Recorded(marked), null, warnings);
    }
    Rebase rebase = Rebase.of(judged.rest(change.delta()), base, fetched.lockfile());
    if (!reapply) {
      for (LockfileConflictException.Conflict dropped : rebase.conflicts()) {
        warn(warnings, LockfileTransaction.DROPPED + dropped.describe() + (change.base() == null
            ? ": the pending record does not say what it was made on (an older tool's record), so it could revert"
                + " another checkout's change"
            : ": another checkout changed it since"));
      }
    }
    return new Replay(rebase.kept(), reapply ? change.delta().names() : Set.of(),
        reapply ? rebase.conflicts() : List.of(), priors);
  }

  /**
   * Runs each change of the batch on its caller's thread, in queue order, against the lockfile as
   * the changes before it left it; callers that queued while the batch took its locks and fetched
   * join it first.
   */
  private static void runChanges(List<GroupCommit.Request> batch, GroupCommit.Turns turns, Lockfile start) {
    batch.addAll(turns.more());
    Lockfile from = start;
    for (GroupCommit.Request request : batch) {
      turns.apply(request, from);
      if (!request.failIfThrown()) {
        from = request.own().applyTo(from);
      }
    }
  }

  /**
   * Makes the commit of the applied changes: what they changed against the lockfile fetched, the
   * names a change made on a cached (maybe stale) view must have checked, a carried change rebased
   * onto the lockfile fetched under the lease, and what earlier writes in doubt ask a write to carry.
   */
  private Plan plan(List<GroupCommit.Request> applied, Replay replay, LockfileStore.Fetched fetched, Lockfile start,
      boolean warm, @Nullable Carried carried) {
    Lockfile made = carried == null || carried.start() == null ? start : carried.start();
    Lockfile changed = made;
    Set<ExtensionName> own = new LinkedHashSet<>();
    Set<ExtensionName> wanted = new LinkedHashSet<>();
    for (GroupCommit.Request r : applied) {
      changed = r.own().applyTo(changed);
      own.addAll(r.own().names());
      wanted.addAll(r.wanted().names());
    }
    List<LockfileConflictException.Conflict> conflicts = new ArrayList<>();
    // a change made on a lockfile that may be stale (the cached one) also wants the names it set to
    // the value it found there: they are checked like the rest, never dropped unseen
    LockfileDelta fence = warm ? fenceOf(wanted, own, changed) : LockfileDelta.EMPTY;
    Lockfile target = changed;
    if (carried != null) {
      // the changes ran on an earlier fetch: rebased name by name, never reverting a peer
      Rebase rebase = Rebase.of(ChangeEditor.deltaOf(made, changed, own).then(fence), made, start);
      conflicts.addAll(rebase.conflicts());
      target = rebase.kept().applyTo(start);
      fence = LockfileDelta.EMPTY;
    }
    Set<ExtensionName> names = new LinkedHashSet<>(replay.delta().names());
    names.addAll(own);
    LockfileDelta delta = ChangeEditor.deltaOf(fetched.lockfile(), target, names);
    LockfileStore.Fetched base = fetched;
    if (delta.isEmpty() && !fence.isEmpty() && replay.priors().isEmpty()) {
      // nothing to write on the cached lockfile: whether it is still current decides
      base = fetch();
      Rebase check = Rebase.of(fence, fetched.lockfile(), base.lockfile());
      conflicts.addAll(check.conflicts());
      delta = check.kept();
      fence = LockfileDelta.EMPTY;
    }
    Set<ExtensionName> checkOnly = new LinkedHashSet<>(fence.without(delta.names()).names());
    delta = delta.then(fence.without(delta.names()));
    // a name an earlier write in doubt carried is always written as this run wants it, even where
    // that is its value now: if the earlier write lands first, this one is refused and rebased from
    // what it carried, and if this one lands first, the earlier one can never land after it
    delta = delta.then(Commit.fence(replay.priors(), delta, target));
    Set<ExtensionName> live = new LinkedHashSet<>(replay.live());
    live.addAll(wanted);
    return new Plan(delta, base, checkOnly, live, conflicts);
  }

  /** Ends a batch that has nothing to write: the record (if any) is settled, each caller told. */
  private void noChange(PendingRecord.Stored stored, List<GroupCommit.Request> applied, Replay replay, Plan plan,
      List<String> warnings) {
    if (!(stored instanceof PendingRecord.None)) {
      try {
        settings.pending().settle();
      } catch (LocalFileException e) {
        warn(warnings, e.getMessage() + "; it holds nothing left to publish");
      }
    }
    List<LockfileConflictException.Conflict> conflicts = new ArrayList<>(replay.conflicts());
    conflicts.addAll(plan.conflicts());
    Results results = new Results(TransactionStatus.NO_CHANGE, 0, plan.base().lockfile(), conflicts, warnings,
        applied);
    applied.forEach(r -> results.give(r, LockfileDelta.EMPTY, description));
  }

  /**
   * Hands the plan to the commit loop and gives each caller its outcome.
   *
   * @param ran what the batch carries over when its loop yields to the lease
   * @return {@code ran} when the loop yielded (nothing of the commit landed or is recorded), else null
   */
  private @Nullable Carried publish(PendingRecord.Stored stored, List<GroupCommit.Request> applied, Replay replay,
      Plan plan, DistributedLock.Held lease, Instant deadline, List<String> warnings, Carried ran) {
    if (lease != CommitLoop.NO_LEASE && !lease.isHeld()) {
      warn(warnings, "The global " + settings.globalLock().describe() + " was lost during the transaction;"
          + " publishing stays safe: it is conditional on the version fetched");
    }
    Set<ExtensionName> earlier = stored instanceof PendingRecord.Recorded r ? r.commit().delta().names() : Set.of();
    Commit commit = new Commit(plan.delta(), plan.base().lockfile(), null, null,
        replay.conflicts().stream().map(LockfileTransaction::dropNotice).toList(), replay.priors());
    CommitLoop loop = new CommitLoop(settings, new Deadline(settings.clock(), deadline), warnings, lease, commit,
        plan.base(), new CommitLoop.Names(plan.live(), earlier, plan.checkOnly()), yielding(stored, lease), contention);
    Landing landing = loop.run();
    if (loop.yielded()) {
      LOG.debug("A commit to {} without the lease yields: it publishes under the global lease", description);
      return ran;
    }
    if (landing instanceof Landing.Landed) {
      if (lease == CommitLoop.NO_LEASE && settings.mode() == CommitMode.AUTO) {
        auto.acknowledged(loop.landedOn(), loop.lockfile(), loop.published().names(), settings.clock().instant());
      }
      proveStored(applied, loop.lockfile(), warnings);
    }
    List<LockfileConflictException.Conflict> conflicts = new ArrayList<>(replay.conflicts());
    conflicts.addAll(plan.conflicts());
    conflicts.addAll(loop.conflicts());
    conclude(applied, landing, loop, conflicts, plan.base().lockfile(), warnings);
    return null;
  }

  /**
   * Returns when a commit without the lease gives up its loop to publish under the lease instead
   * (only a batch that started with nothing pending, whose record then holds this commit alone):
   * in auto mode, the head fetched after a refusal is not trusted; in either mode without the
   * lease, the commit lost {@link TransactionSettings#yieldAfter()} races in a row, or, after a
   * race lost, the lease is held (one read of it): a writer that keeps losing takes a turn, and the
   * others yield to it while it holds the lease.
   */
  private CommitLoop.Yield yielding(PendingRecord.Stored stored, DistributedLock.Held lease) {
    if (lease != CommitLoop.NO_LEASE || !(stored instanceof PendingRecord.None)) {
      return CommitLoop.Yield.NEVER;
    }
    return (fresh, lost) -> settings.mode() == CommitMode.AUTO && !auto.trusts(fresh.head(), store.metadataCapacity())
        || lost >= settings.yieldAfter() || leaseHeld();
  }

  /** Returns whether the global lease is held now, by anyone (one read); false when that cannot be read. */
  private boolean leaseHeld() {
    try {
      return settings.globalLock().inspect().isPresent();
    } catch (RuntimeException e) {
      LOG.debug("Cannot read the global lease of {}: {}", description, e.toString());
      return false;
    }
  }

  /** Gives each applied request its outcome from how the commit ended. */
  private void conclude(List<GroupCommit.Request> applied, Landing landing, CommitLoop loop,
      List<LockfileConflictException.Conflict> conflicts, Lockfile fetched, List<String> warnings) {
    if (landing instanceof Landing.Landed) {
      Results results = new Results(TransactionStatus.PUBLISHED, loop.attempts(), loop.lockfile(), conflicts,
          warnings, applied);
      applied.forEach(r -> results.give(r, applied.size() == 1 ? loop.published() : r.own(), description));
      return;
    }
    forgetNotices(warnings);
    for (LockfileConflictException.Conflict conflict : conflicts) {
      // the worse outcome is the exception; the conflicts travel in its message
      warn(warnings, "Kept another checkout's value of " + conflict.describe() + " (" + LockfileConflictException.CODE
          + ")");
    }
    if (landing instanceof Landing.NotLanded notLanded) {
      unpublished(applied, notLanded.cause(), loop, conflicts, fetched, warnings);
      return;
    }
    Throwable cause = landing instanceof Landing.NotYet notYet ? notYet.cause() : null;
    PendingRecord.Stored now = settings.pending().read();
    for (GroupCommit.Request r : applied) {
      r.fail(withConflicts(blocked(now, cause, warnings), conflicts, r, applied));
    }
  }

  /** Gives each applied request its outcome when nothing landed: it fails, or is deferred by policy. */
  private void unpublished(List<GroupCommit.Request> applied, @Nullable RuntimeException cause, CommitLoop loop,
      List<LockfileConflictException.Conflict> conflicts, Lockfile fetched, List<String> warnings) {
    LockfileDelta left = loop.recorded();
    for (GroupCommit.Request r : applied) {
      if (settings.policy() == PublishFailurePolicy.THROW) {
        r.fail(withConflicts(new ManagedConfigUnpublishedException(description, left, settings.pending().path(),
            loop.attempts(), cause, warnings), conflicts, r, applied));
      } else {
        List<String> told = new ArrayList<>(warnings);
        told.add(new ManagedConfigUnpublishedException(description, left, settings.pending().path(),
            loop.attempts(), cause).getMessage());
        new Results(TransactionStatus.DEFERRED, loop.attempts(), fetched, conflicts, told, applied)
            .give(r, applied.size() == 1 ? left : r.own().restrictedTo(left.names()), description);
      }
    }
    if (settings.policy() == PublishFailurePolicy.DEFER) {
      LOG.warn(new ManagedConfigUnpublishedException(description, left, settings.pending().path(), loop.attempts(),
          cause).getMessage());
    }
  }

  /** Adds the conflicts on {@code request}'s names to {@code failure}, as suppressed. */
  private RuntimeException withConflicts(RuntimeException failure, List<LockfileConflictException.Conflict> conflicts,
      GroupCommit.Request request, List<GroupCommit.Request> applied) {
    List<LockfileConflictException.Conflict> its = Results.conflictsOf(request, conflicts, applied);
    if (!its.isEmpty()) {
      failure.addSuppressed(new LockfileConflictException(description, its, List.of()));
    }
    return failure;
  }

  /**
   * What each caller of a batch is told when the commit published, had nothing to do, or was
   * deferred: the conflicts on its own names fail it; otherwise it gets the result.
   */
  private record Results(TransactionStatus status, int attempts, Lockfile lockfile,
      List<LockfileConflictException.Conflict> conflicts, List<String> warnings, List<GroupCommit.Request> applied) {

    /**
     * Ends {@code request}: a conflict on a name its change wrote (or on a replayed pending name,
     * for a batch of one) fails it; otherwise it gets the result.
     */
    void give(GroupCommit.Request request, LockfileDelta delta, String description) {
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
    static List<LockfileConflictException.Conflict> conflictsOf(GroupCommit.Request request,
        List<LockfileConflictException.Conflict> conflicts, List<GroupCommit.Request> applied) {
      boolean first = !applied.isEmpty() && applied.get(0) == request;
      return conflicts.stream().filter(c -> request.wanted().touches(c.name())
          || first && applied.stream().noneMatch(r -> r.wanted().touches(c.name()))).toList();
    }
  }

  /** Returns the requests whose change ran without throwing and that no check failed since. */
  private static List<GroupCommit.Request> live(List<GroupCommit.Request> batch) {
    return batch.stream().filter(r -> r.applied() && !r.isDone()).toList();
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

  /**
   * Proves present, after a publish that landed, each archive a request's change stored that the
   * shared lockfile now pins ({@code published}), storing it again when it is missing: a
   * collection that judged it unpinned before the publish may have taken it since. Never throws: a
   * failure is a warning (the archive is then missing until a writer stores it again).
   */
  private void proveStored(List<GroupCommit.Request> requests, Lockfile published, List<String> warnings) {
    for (GroupCommit.Request r : requests) {
      for (var required : r.required().entrySet()) {
        TierPath path = required.getKey();
        if (CommitRun.pins(published, path)) {
          try {
            if (!store.holds(path)) {
              required.getValue().run();
              warn(warnings, "Stored " + path + " in " + description + " again: it was missing after the lockfile"
                  + " that pins it was published (a collection took it meanwhile)");
            }
          } catch (RuntimeException e) {
            warn(warnings, "Cannot prove that " + path + " is in " + description + " after the lockfile that pins"
                + " it was published: " + e.getMessage());
          }
        }
      }
    }
  }

  /** Returns whether {@code lockfile} pins the archive at {@code path}. */
  static boolean pins(Lockfile lockfile, TierPath path) {
    return path.archiveOf().flatMap(name -> lockfile.entry(name).flatMap(LockfileEntry::checksum))
        .equals(path.archiveSha256());
  }

  /**
   * Rewrites the record without its notices once this run is about to tell its caller (a record
   * that stays behind would otherwise tell the next run again); best effort: failing to, the next
   * run tells them again.
   */
  private void forgetNotices(List<String> warnings) {
    try {
      if (settings.pending().read() instanceof PendingRecord.Recorded r && !r.commit().notices().isEmpty()) {
        settings.pending().record(r.commit().withoutNotices());
      }
    } catch (LocalFileException e) {
      warn(warnings, e.getMessage() + "; what it notes is told again by the next transaction");
    }
  }

  /** Returns the failure that says {@code stored} blocks this checkout. */
  private LockfileOutcomeUnknownException blocked(PendingRecord.Stored stored, @Nullable Throwable cause,
      List<String> warnings) {
    PendingChange view = settings.pending().view(stored).orElseThrow(() -> new IllegalStateException(
        "Cannot describe a pending change of " + description + ": none is recorded"));
    return new LockfileOutcomeUnknownException(description, view, cause, warnings);
  }

  private LockfileStore.Fetched fetch() {
    return fetch(store, LockfileStore.Fetch.EXACT, description);
  }

  /**
   * Fetches the shared lockfile {@code how}.
   *
   * @throws ManagedLockfileUnavailableException if the store failed for a passing reason
   */
  static LockfileStore.Fetched fetch(LockfileStore store, LockfileStore.Fetch how, String description) {
    try {
      return store.fetch(how);
    } catch (DatastoreUnavailableException | DatastoreBusyException | OutcomeUnknownException e) {
      throw new ManagedLockfileUnavailableException("Cannot fetch the shared lockfile from " + description, e);
    }
  }

  private static void warn(List<String> warnings, String message) {
    LOG.warn(message);
    warnings.add(message);
  }
}
