package dev.tierlock;

import dev.tierlock.internal.Backoff;
import dev.tierlock.internal.Deadline;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.OutcomeUnknownException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit loop: record the commit durably, write the lockfile built from it conditional on the
 * version it was made on, and settle what happened. This class and {@link PendingRecord} are where
 * "can my write be lost?" is answered. Not thread-safe: one per run, on the run's thread, under the
 * checkout's transaction lock.
 *
 * <ul>
 *   <li><b>Before every write</b> the pending record holds the commit, its base entries and the
 *       write about to be sent (commit id, parent version), so a process that dies at any point
 *       leaves what the next run needs to judge the write by its lineage.
 *   <li><b>Landed</b>: the lease, if held, is released at once; then the cache takes the published
 *       bytes and the record is settled (a failed cleanup
 *       is a warning: the next run finds the commit in the lineage). No archive is deleted here: a
 *       collection judges archives by reachability ({@link ArchiveCollector}).
 *   <li><b>Refused</b> (a newer lockfile): fetch again and rebase the change name by name ({@link
 *       Rebase}); a name another checkout changed meanwhile is never reverted: it is dropped, as a
 *       conflict of this run's change or, for a replayed pending name, a warning.
 *   <li><b>No answer</b>: the write is in flight, and the lineage read back decides ({@link
 *       Landing#of}): landed, done; not landed yet (its parent is current), sent again with the same
 *       commit id, since the first request may still arrive; not landed (its parent has another
 *       successor), rebased and sent under a new id; neither provable, the record says so and the
 *       run fails. A write in doubt stays in doubt, through refusals and failed sends, until a
 *       lineage settles it; when none does before the deadline, the run fails with the write still
 *       in flight and the next run settles it.
 *   <li><b>Store unavailable or busy</b>: wait with jittered backoff and retry within the deadline
 *       and the most attempts; then the record keeps the change, unpublished.
 * </ul>
 */
final class CommitLoop {

  private static final Logger LOG = LoggerFactory.getLogger(CommitLoop.class);

  /**
   * Whose names a commit carries.
   *
   * @param live the names the run's callers touched: a conflict on one fails the run (on a replayed
   *     pending name it is a warning)
   * @param earlier the names of the change an earlier run recorded (acknowledged to its caller as
   *     saved): a drop of one of them is noted in every record the loop writes, so that if the run
   *     dies before it can tell its caller, the next run does
   * @param checkOnly names carried at the value the change found them, only to have them checked:
   *     they change nothing, so the pending record never holds them
   */
  record Names(Set<ExtensionName> live, Set<ExtensionName> earlier, Set<ExtensionName> checkOnly) {
    Names {
      live = Set.copyOf(live);
      earlier = Set.copyOf(earlier);
      checkOnly = Set.copyOf(checkOnly);
    }
  }

  /**
   * Whether a commit without the lease gives up its loop after a race lost, to publish under the
   * lease instead ({@link CommitRun}).
   */
  interface Yield {
    /** Never yields (under the lease, or a commit that carries an earlier run's change). */
    Yield NEVER = (fresh, lost) -> false;

    /**
     * Returns whether to yield now.
     *
     * @param fresh the lockfile fetched after the refusal
     * @param lost the races this commit lost in a row
     */
    boolean test(LockfileStore.Fetched fresh, int lost);
  }

  /** The lease an optimistic run holds: none. */
  static final DistributedLock.Held NO_LEASE = new DistributedLock.Held() {
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

  private final TransactionSettings settings;
  private final LockfileStore store;
  private final Deadline deadline;
  private final List<String> warnings;
  private final DistributedLock.Held lease;
  private final Names names;
  private final Yield yield;
  private final Contention contention;
  private boolean yielded;
  /** The lockfile the last write was made on. */
  private Lockfile sentOn;
  /** Drops made before the loop (by a re-applied record's rebase), as notices. */
  private final List<String> earlierDrops;
  private final List<LockfileConflictException.Conflict> conflicts = new ArrayList<>();
  private LockfileDelta delta;
  private LockfileDelta landed = LockfileDelta.EMPTY;
  private LockfileStore.Fetched base;
  private Lockfile now;
  /** Earlier writes of this change (by an earlier run) that may still land, on the base's version. */
  private List<Commit.Prior> priors;
  /** A write of this change that went unanswered and may still land: its parent was current when last seen. */
  private Commit.@Nullable Attempt doubt;
  /** The write of the current attempt, once its commit id is chosen; and whether it may be on its way. */
  private Commit.@Nullable Attempt sending;
  private boolean writing;
  private boolean refetch;
  private @Nullable RuntimeException last;
  private int attempts;
  private int racesLost;
  /** Whether the last refusal was counted as a race lost, until the fetch after it says whether a peer wrote. */
  private boolean raceCounted;
  /** The round trip of the last refused write, for the race wait. */
  private Duration raceTrip = Duration.ZERO;

  /**
   * Prepares the loop for {@code commit}, made on {@code base}.
   *
   * @param lease the global lease the run holds ({@link #NO_LEASE} when optimistic): a
   *     run without it waits before it sends a refused write again
   * @param yield when a run without the lease gives up its loop after a race lost ({@link #yielded()})
   * @param contention what the loop tells of the races it lost and the writes it landed
   */
  CommitLoop(TransactionSettings settings, Deadline deadline, List<String> warnings, DistributedLock.Held lease,
      Commit commit, LockfileStore.Fetched base, Names names, Yield yield, Contention contention) {
    this.settings = settings;
    this.store = settings.store();
    this.deadline = deadline;
    this.warnings = warnings;
    this.lease = lease;
    this.names = names;
    this.yield = yield;
    this.contention = contention;
    this.delta = commit.delta();
    this.earlierDrops = commit.notices();
    this.priors = commit.priors();
    this.base = base;
    this.now = base.lockfile();
    this.sentOn = base.lockfile();
  }

  /**
   * Runs the loop until the commit is published or settled otherwise; always makes one attempt.
   *
   * @return {@link Landing.Landed} (everything published or proven landed; {@link #lockfile()} is the
   *     shared lockfile now), {@link Landing.NotLanded} (nothing of what is left landed; recorded as
   *     unpublished), {@link Landing.NotYet} (a write may still land; recorded in flight) or {@link
   *     Landing.Unknown} (recorded as unprovable); the pending record matches it
   * @throws LocalFileException if the record cannot be written before a write (nothing was sent; an
   *     older record, if any, is unchanged)
   */
  Landing run() {
    Backoff backoff = new Backoff(settings.firstBackoff(), settings.maxBackoff(), settings::nextUnit);
    // a race lost without a lease is bounded by the deadline alone: it is no failure
    while (attempts == 0 || (attempts - racesLost < settings.maxAttempts() && !deadline.hasPassed())) {
      attempts++;
      sending = null;
      writing = false;
      try {
        Landing ended = attempt();
        if (ended != null) {
          return ended;
        }
        if (refetch && last == null) {
          // refused for a newer lockfile: rebased and sent again at once (after a race wait when optimistic)
          if (!waitAfterRace()) {
            break;
          }
          continue;
        }
      } catch (RuntimeException e) {
        if (stopsOn(e)) {
          break;
        }
      }
      if (deadline.hasPassed() || !backOff(backoff)) {
        break;
      }
    }
    return end();
  }

  /**
   * Makes one attempt: rebases onto a fresh fetch when the last one asked for it, records the
   * commit, sends it and takes in the answer.
   *
   * @return how the loop ends, or null to go on
   */
  private @Nullable Landing attempt() {
    if (refetch) {
      Landing settled = rebaseOntoFresh();
      refetch = false;
      if (settled != null) {
        return settled;
      }
    }
    if (delta.isEmpty()) {
      return finish(base.lockfile());
    }
    // a write in doubt is sent again as the same commit: of the two, at most one lands
    String commitId = doubt != null ? doubt.commitId() : settings.nextCommitId();
    Commit.Attempt attempt = new Commit.Attempt(commitId, base.head());
    sending = attempt;
    store.commitMetadata(attempt.commitId(), attempt.parent(), !base.lineageBound());
    Lockfile publishing = delta.applyTo(base.lockfile());
    // after the fetch it is conditioned on, before it is sent: a collection sees the archives it
    // pins anew or unpins as recently changed (ArchiveCollector)
    store.marks().touch(ArchiveMarks.changed(base.lockfile(), publishing, delta.names()), settings::nextCommitId);
    pace();
    // the record a crash may leave: it carries what this run dropped, for the next run to tell
    settings.pending().record(new Commit(recorded(), base.lockfile(), attempt, null, notices(), priors));
    writing = true;
    sentOn = base.lockfile();
    Instant sent = settings.clock().instant();
    store.sending(sent);
    Landing answer = store.write(publishing, base.head(), attempt.commitId(), base.lineageBound());
    if (answer instanceof Landing.Landed ok) {
      contention.landed(base.head(), attempt.commitId(), sent, settings.clock().instant());
      return landed(publishing, ok.head());
    }
    if (answer instanceof Landing.Unknown unknown) {
      return unprovable(attempt, unknown.now());
    }
    last = null;
    if (answer instanceof Landing.NotYet notYet) {
      LOG.debug("The write of commit {} to {} went unanswered and has not landed yet; sending it again",
          attempt.commitId(), store.describe());
      doubt = new Commit.Attempt(attempt.commitId(), notYet.now());
      base = new LockfileStore.Fetched(notYet.now(), base.lockfile());
      return null;
    }
    // refused: a newer lockfile (an earlier send of a commit in doubt may be what made it)
    LOG.debug("Publish to {} met a newer lockfile; fetching it again", store.describe());
    refetch = true;
    raceTrip = Duration.between(sent, settings.clock().instant());
    return null;
  }

  /** Ends the loop on a write that landed: its bytes (with {@code head}, when its answer came) are what is current. */
  private Landing landed(Lockfile publishing, @Nullable LockfileHead head) {
    doubt = null;
    priors = List.of();
    // the lease has served its turn: the cache and the record are this checkout's own files, under
    // its checkout lock, and a crash before the record is settled leaves a commit its lineage proves
    lease.release();
    if (head != null) {
      store.remember(publishing, head).ifPresent(warnings::add);
      return finish(publishing);
    }
    // proven by a later version's lineage: what is current now is read back
    try {
      base = store.fetch(LockfileStore.Fetch.EXACT);
    } catch (RuntimeException e) {
      warn("Published, but reading the shared lockfile of " + store.describe() + " back failed (" + e.getMessage()
          + ")");
      return finish(publishing);
    }
    return finish(base.lockfile());
  }

  /**
   * Takes in a failure of an attempt: a write that may be on its way stays in doubt.
   *
   * @return whether the loop stops here (else it backs off and tries again)
   * @throws RuntimeException {@code e} itself, when nothing was sent and nothing is in doubt
   */
  private boolean stopsOn(RuntimeException e) {
    last = e;
    if (e instanceof OutcomeUnknownException) {
      if (sending != null) {
        doubt = sending;
      }
      refetch = true;
      return false;
    }
    if (e instanceof DatastoreUnavailableException || e instanceof DatastoreBusyException) {
      // refused before it could land: a commit in doubt stays in doubt; a failed fetch is tried again
      return false;
    }
    if (e instanceof DatastoreUnsafeException && doubt == null) {
      throw e;
    }
    if (e instanceof LocalFileException && !writing && doubt == null) {
      throw e;
    }
    if (!(e instanceof DatastoreUnsafeException) && writing && sending != null) {
      // anything else once the write was on its way: it may have landed
      doubt = sending;
    }
    return true;
  }

  /**
   * Fetches the shared lockfile again; settles a write in doubt and earlier writes by the lineage;
   * rebases what is left onto the fresh lockfile.
   *
   * @return how the loop ends (landed with nothing left, or unprovable), else null
   */
  private @Nullable Landing rebaseOntoFresh() {
    LockfileStore.Fetched fresh = store.fetch(LockfileStore.Fetch.EXACT);
    if (raceCounted && sameVersion(fresh, base)) {
      // refused, yet nobody wrote: not a race another writer won but a failed attempt, which counts
      // against the most attempts (a store that refuses and never shows why cannot loop forever)
      racesLost--;
    } else if (raceCounted) {
      contention.raceLost(settings.clock().instant());
    }
    raceCounted = false;
    if (racesLost > 0 && last == null && doubt == null && priors.isEmpty() && landed.isEmpty()
        && yield.test(fresh, racesLost)) {
      Landing given = giveUp();
      if (given != null) {
        return given;
      }
    }
    Lockfile from = base.lockfile();
    Commit.Judgement judged = store.judge(doubt, priors, fresh.head());
    if (judged.attempt() instanceof Landing.Landed) {
      LOG.debug("The unanswered write of commit {} to {} landed", doubt == null ? "" : doubt.commitId(),
          store.describe());
      doubt = null;
      priors = List.of();
      landed = landed.then(delta);
      delta = LockfileDelta.EMPTY;
      base = fresh;
      return finish(fresh.lockfile());
    }
    if (judged.priorLanded() != null) {
      // an earlier write landed: this one cannot have; what is left is rebased from what it carried
      LOG.debug("An earlier unanswered write of this change to {} landed", store.describe());
      doubt = null;
      priors = List.of();
      landed = landed.then(judged.priorLanded());
      delta = judged.rest(delta);
      from = judged.priorLanded().applyTo(from);
    } else {
      Commit.Attempt unprovable = judged.unprovable() != null ? judged.unprovable()
          : judged.attempt() instanceof Landing.Unknown ? doubt : null;
      if (unprovable != null) {
        return unprovable(unprovable, fresh.head());
      }
      priors = judged.open();
      // its parent is current (same bytes): the rebase below keeps the change as it is
      doubt = doubt != null && judged.attempt() instanceof Landing.NotYet
          ? new Commit.Attempt(doubt.commitId(), fresh.head()) : null;
    }
    rebase(from, fresh);
    return null;
  }

  /** Rebases what is left, made on {@code from}, onto {@code fresh}, name by name. */
  private void rebase(Lockfile from, LockfileStore.Fetched fresh) {
    Rebase rebase = Rebase.of(delta, from, fresh.lockfile());
    conflicts.addAll(rebase.conflictsOn(names.live()));
    for (LockfileConflictException.Conflict dropped : rebase.conflictsOutside(names.live())) {
      warn(LockfileTransaction.dropNotice(dropped));
    }
    LockfileDelta before = delta;
    delta = rebase.kept();
    if (!priors.isEmpty()) {
      // names already as wanted stay in the write while an earlier write of them may still land
      delta = delta.then(Commit.fence(priors, delta, before.applyTo(fresh.lockfile())).restrictedTo(
          rebase.alreadyThere()));
    }
    base = fresh;
  }

  /**
   * Gives up the loop after a race lost, to publish under the lease: nothing of the commit landed
   * (its last write was refused and none is in doubt), so its record is cleared and the batch
   * carries its changes to the run under the lease.
   *
   * @return how the loop ends, or null to go on when the record cannot be cleared
   */
  private @Nullable Landing giveUp() {
    try {
      settings.pending().settle();
    } catch (LocalFileException e) {
      LOG.debug("Cannot clear the record of a commit to {} that yields to the lease ({}); it goes on without",
          store.describe(), e.getMessage());
      return null;
    }
    yielded = true;
    return Landing.NOT_LANDED;
  }

  /** Records the commit as unprovable: every later run fails until the caller decides. */
  private Landing unprovable(Commit.Attempt attempt, @Nullable LockfileHead head) {
    String reason = "the write of commit " + attempt.commitId() + " went unanswered and the shared lockfile moved on ("
        + (head == null ? "it no longer exists" : "now version " + head.version().value()
            + head.commitId().map(id -> " of commit " + id).orElse(", written without a commit id"))
        + ") without a lineage that shows whether it landed";
    settings.pending().record(new Commit(recorded(), base.lockfile(), attempt, reason, List.of(), priors));
    LOG.warn("Cannot confirm the lockfile change to {}: {}", store.describe(), reason);
    return new Landing.Unknown(head);
  }

  /** Ends the loop without a landing: records the commit as it stands (in flight, or unpublished). */
  private Landing end() {
    Commit.Attempt open = doubt;
    if (open != null) {
      // the record written before its send names it already
      return new Landing.NotYet(open.parent(), last);
    }
    settings.pending().record(new Commit(recorded(), base.lockfile(), null, null, List.of(), priors));
    if (!priors.isEmpty()) {
      // an earlier write may still land: the change stays in flight
      return new Landing.NotYet(priors.get(priors.size() - 1).attempt().parent(), last);
    }
    return new Landing.NotLanded(last);
  }

  /**
   * Ends the loop on a landing: {@code published} is the shared lockfile as this run last knew it;
   * settles the record.
   */
  private Landing finish(Lockfile published) {
    now = published;
    try {
      settings.pending().settle();
    } catch (LocalFileException e) {
      warn("Published, but " + e.getMessage() + "; the next transaction finds the commit in the lineage and clears it");
    }
    return Landing.LANDED;
  }

  /**
   * Waits until this checkout's next lockfile write keeps to the store's per-object rate (GCS: one
   * per second), within the deadline; runs queued meanwhile join the next batch.
   *
   * @throws InterruptedOperationException if interrupted while waiting
   */
  private void pace() {
    Duration wait = store.paceAt(settings.clock().instant());
    if (wait.isZero()) {
      return;
    }
    if (wait.compareTo(deadline.remaining()) > 0) {
      // sent sooner, the store would refuse it for its rate; sent later, past the deadline
      throw new DatastoreBusyException("Cannot publish lockfile change to " + store.describe() + ": the"
          + " store sustains one write of it per " + store.minWriteInterval().toMillis() + " ms, and the"
          + " next one is due after the transaction's deadline", null);
    }
    try {
      settings.sleeper().sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedOperationException("Cannot publish lockfile change to " + store.describe(), e);
    }
  }

  /** {@return whether {@code fresh} is the version {@code sentOn} was: the refusal showed no peer's write} */
  private static boolean sameVersion(LockfileStore.Fetched fresh, LockfileStore.Fetched sentOn) {
    return fresh.head() == null ? sentOn.head() == null
        : sentOn.head() != null && fresh.head().version().equals(sentOn.head().version());
  }

  /**
   * After a write refused for a newer lockfile, a writer that holds no lease waits before it
   * rebases and sends again: a uniform draw from zero up to the round trip of the refused write,
   * doubling with every race lost, up to the longest wait. Under the lease (where a refusal means a
   * writer that took none) it sends again at once; in both cases a race lost counts against the
   * deadline only, never against the most attempts.
   *
   * @return false when interrupted (the loop stops)
   */
  private boolean waitAfterRace() {
    if (lease != NO_LEASE) {
      // a writer without the lease won: a race, not a failure, bounded by the deadline alone
      racesLost++;
      raceCounted = true;
      return true;
    }
    if (deadline.hasPassed()) {
      return true;
    }
    Duration wait = raceWait(raceTrip, ++racesLost, settings.maxBackoff(), settings.nextUnit());
    raceCounted = true;
    Duration left = deadline.remaining();
    try {
      settings.sleeper().sleep(wait.compareTo(left) > 0 ? left : wait);
      return true;
    } catch (InterruptedException e) {
      last = new InterruptedOperationException("Cannot publish lockfile change to " + store.describe(), e);
      return false;
    }
  }

  /**
   * Waits before the next attempt after a failure: one wait serves both the backoff and what the
   * store's per-object rate still asks.
   *
   * @return false when interrupted (the loop stops)
   */
  private boolean backOff(Backoff backoff) {
    try {
      Duration wait = backoff.next(deadline);
      Duration paced = store.paceAt(settings.clock().instant());
      if (paced.compareTo(wait) > 0 && paced.compareTo(deadline.remaining()) <= 0) {
        wait = paced;
      }
      settings.sleeper().sleep(wait);
      return true;
    } catch (InterruptedException e) {
      last = new InterruptedOperationException("Cannot publish lockfile change to " + store.describe(), e);
      return false;
    }
  }

  /** Returns the wait after the {@code lost}th race lost, by a write that took {@code roundTrip}. */
  static Duration raceWait(Duration roundTrip, int lost, Duration max, double unit) {
    Duration cap = roundTrip.isZero() || roundTrip.isNegative() ? Duration.ofMillis(1) : roundTrip;
    for (int i = 1; i < lost && cap.compareTo(max) < 0; i++) {
      cap = cap.multipliedBy(2);
    }
    if (cap.compareTo(max) > 0) {
      cap = max;
    }
    return Duration.ofNanos((long) (cap.toNanos() * unit));
  }

  /** Returns what this run dropped of an earlier run's change so far, as notices for the next run. */
  private List<String> notices() {
    List<String> out = new ArrayList<>(LockfileTransaction.dropNotices(warnings));
    out.addAll(earlierDrops);
    conflicts.stream().filter(c -> names.earlier().contains(c.name()))
        .forEach(c -> out.add(LockfileTransaction.dropNotice(c)));
    return out;
  }

  private void warn(String message) {
    LOG.warn(message);
    warnings.add(message);
  }

  /** Returns the shared lockfile as the loop last knew it: once landed, the lockfile published. */
  Lockfile lockfile() {
    return now;
  }

  /** Returns what was published or proven landed, whole. */
  LockfileDelta published() {
    LockfileDelta all = landed.then(delta);
    return names.checkOnly().isEmpty() ? all : all.without(names.checkOnly());
  }

  /** Returns what is left unpublished, as the pending record holds it: the delta without the checked names. */
  LockfileDelta recorded() {
    return names.checkOnly().isEmpty() ? delta : delta.without(names.checkOnly());
  }

  /** Returns whether the loop gave up to publish under the lease: nothing landed, nothing is recorded. */
  boolean yielded() {
    return yielded;
  }

  /** Returns the lockfile the last write was made on (once landed: what it replaced). */
  Lockfile landedOn() {
    return sentOn;
  }

  /** Returns the publish attempts made. */
  int attempts() {
    return attempts;
  }

  /** Returns the conflicts found on names this run's change touched. */
  List<LockfileConflictException.Conflict> conflicts() {
    return List.copyOf(conflicts);
  }
}
