package dev.tierlock;

import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.internal.Backoff;
import dev.tierlock.internal.Deadline;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.OutcomeUnknownException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publish loop of one transaction: record the change durably, write the lockfile built from it
 * conditional on the version it was made on, and settle what happened. Not thread-safe: one per
 * run, on the run's thread, under the checkout's transaction lock.
 *
 * <ul>
 *   <li><b>Before every write</b> the pending record names the change, its base entries and the
 *       write about to be sent (commit id, parent version), so a process that dies at any point
 *       leaves what the next run needs to judge the write by its lineage.
 *   <li><b>Landed</b>: the cache takes the published bytes, the record is cleared (a failed
 *       cleanup is a warning: the next run finds the commit in the lineage), superseded archives
 *       are deleted.
 *   <li><b>Refused</b> (a newer lockfile): fetch again and rebase the change name by name ({@link
 *       Rebase}); a name another checkout changed meanwhile is never reverted: it is dropped, as a
 *       conflict of this run's change or, for a replayed pending name, a warning.
 *   <li><b>No answer</b>: the write is in flight. The lineage read back decides ({@link Landing}):
 *       landed, done; not landed yet (its parent is current), sent again with the same commit id,
 *       since the first request may still arrive; not landed (its parent has another successor),
 *       rebase and retry under a new id; neither provable, the record is marked {@link
 *       PendingChange.State#OUTCOME_UNKNOWN} and the run fails. A write in doubt stays in doubt,
 *       through refusals and failed sends, until a lineage settles it. When none does before the
 *       deadline, the run fails with the write still in flight; the next run settles it.
 *   <li><b>Store unavailable or busy</b>: wait with jittered backoff and retry within the deadline
 *       and the most attempts; then the record keeps the change, unpublished.
 * </ul>
 */
final class PublishLoop {

  private static final Logger LOG = LoggerFactory.getLogger(PublishLoop.class);

  /** How the loop ended. */
  sealed interface Ending {
    /** Everything is published (or proven landed); {@code lockfile} is the shared lockfile now. */
    record Published(Lockfile lockfile) implements Ending {}

    /** Nothing of what is left landed; it is recorded as unpublished. {@code cause} is the last failure, if any. */
    record Unpublished(@Nullable RuntimeException cause) implements Ending {}

    /** A write went unanswered and no read-back settled it; it stays recorded as in flight. */
    record InFlight(String commitId, @Nullable RuntimeException cause) implements Ending {}

    /** A write went unanswered and the lineage cannot prove it either way; recorded as outcome unknown. */
    record Unprovable(String commitId, @Nullable LockfileHead now) implements Ending {}
  }

  private final TransactionSettings settings;
  private final Deadline deadline;
  private final List<String> warnings;
  private final Set<ExtensionName> live;
  private final Set<ExtensionName> earlier;
  private final List<String> earlierDrops;
  private final List<TierPath> deletions;
  private final List<LockfileConflictException.Conflict> conflicts = new ArrayList<>();
  private LockfileDelta delta;
  private LockfileDelta landed = LockfileDelta.EMPTY;
  private SyncPort.Fetched base;
  /**
   * A write of this change that went unanswered and may still land: its parent was current when
   * last seen. Every later send reuses its commit id while it stays in doubt.
   */
  private PendingRecord.@Nullable Attempt doubt;
  private java.util.function.BooleanSupplier leaseHeld = () -> true;
  private Set<ExtensionName> checkOnly = Set.of();
  /** Whether a write refused for a newer lockfile waits before it is rebased and sent again. */
  private boolean raceBackoff;
  private int racesLost;
  /** Earlier writes of this change (by an earlier run) that may still land, on the same parent as the base. */
  private List<PendingRecord.Prior> priors;
  private int attempts;

  /**
   * Prepares the loop.
   *
   * @param delta the change to publish, made on {@code base}
   * @param base the shared lockfile as fetched
   * @param live the names this run's change touched (a conflict on them fails the run; on a
   *     replayed pending name it is a warning)
   * @param deletions the tier paths to delete after the lockfile is published, unless it pins them
   * @param earlier the names of the change an earlier run recorded (acknowledged to its caller as
   *     saved): a drop of one of them is noted in every record this loop writes, so that if this run
   *     dies before it can tell its caller, the next run does
   * @param earlierDrops such drops made before the loop (by a re-applied record's rebase), as notices
   */
  PublishLoop(TransactionSettings settings, Deadline deadline, List<String> warnings, LockfileDelta delta,
      SyncPort.Fetched base, Set<ExtensionName> live, List<TierPath> deletions, Set<ExtensionName> earlier,
      List<String> earlierDrops) {
    this(settings, deadline, warnings, delta, base, live, deletions, earlier, earlierDrops, List.of());
  }

  /**
   * Prepares the loop for a change whose earlier writes went unanswered and may still land: they
   * were conditioned on {@code base}'s version, which is current. Every fetch judges them too: when
   * one landed, what is left is rebased from what it carried.
   *
   * @param priors those writes, oldest first
   */
  PublishLoop(TransactionSettings settings, Deadline deadline, List<String> warnings, LockfileDelta delta,
      SyncPort.Fetched base, Set<ExtensionName> live, List<TierPath> deletions, Set<ExtensionName> earlier,
      List<String> earlierDrops, List<PendingRecord.Prior> priors) {
    this.priors = List.copyOf(priors);
    this.settings = settings;
    this.deadline = deadline;
    this.warnings = warnings;
    this.delta = delta;
    this.base = base;
    this.live = Set.copyOf(live);
    this.earlier = Set.copyOf(earlier);
    this.earlierDrops = List.copyOf(earlierDrops);
    this.deletions = List.copyOf(deletions);
  }

  /**
   * Runs the loop until the change is published or settled otherwise; always makes one attempt.
   *
   * @return how it ended; the pending record matches it
   * @throws LocalFileException if the record cannot be written before a write (nothing was sent; an
   *     older record, if any, is unchanged)
   */
  Ending run() {
    Backoff backoff = new Backoff(settings.firstBackoff(), settings.maxBackoff(), settings::nextUnit);
    boolean refetch = false;
    RuntimeException last = null;
    // a race lost without a lease is bounded by the deadline alone: it is no failure
    while (attempts == 0 || (attempts - racesLost < settings.maxAttempts() && !deadline.hasPassed())) {
      attempts++;
      boolean writing = false;
      PendingRecord.Attempt sending = null;
      try {
        if (refetch) {
          Ending settled = rebaseOntoFresh();
          refetch = false;
          if (settled != null) {
            return settled;
          }
        }
        if (delta.isEmpty()) {
          return finish(base.lockfile());
        }
        // a write in doubt is sent again as the same commit: of the two, at most one lands
        PendingRecord.Attempt attempt = new PendingRecord.Attempt(
            doubt != null ? doubt.commitId() : settings.nextCommitId(), base.head());
        sending = attempt;
        settings.port().commitMetadata(attempt.commitId(), attempt.parent());
        pace();
        // the record a crash may leave: it carries what this run dropped, for the next run to tell
        settings.pending().write(new PendingRecord.Change(recorded(), base.lockfile(), deletions, attempt, null, notices(),
            priors));
        writing = true;
        Lockfile publishing = delta.applyTo(base.lockfile());
        java.time.Instant sent = settings.clock().instant();
        settings.port().sending(sent);
        SyncPort.Outcome outcome = settings.port().publish(publishing, base.head(), attempt.commitId());
        if (outcome instanceof SyncPort.Outcome.Landed ok) {
          doubt = null;
          priors = List.of();
          if (ok.head() == null) {
            // proven by a later version's lineage: what is current now decides what may be deleted
            try {
              base = settings.port().hydrate();
            } catch (RuntimeException e) {
              warn("Published, but reading the shared lockfile of " + settings.port().describe() + " back failed ("
                  + e.getMessage() + "); the archives it superseded are left in place");
              return finish(publishing, false);
            }
            return finish(base.lockfile());
          }
          settings.port().remember(publishing, ok.head()).ifPresent(warnings::add);
          return finish(publishing);
        }
        if (outcome instanceof SyncPort.Outcome.Unprovable unprovable) {
          return unprovable(attempt, unprovable.now(), null);
        }
        if (outcome instanceof SyncPort.Outcome.NotYet notYet) {
          LOG.debug("The write of commit {} to {} went unanswered and has not landed yet; sending it again",
              attempt.commitId(), settings.port().describe());
          doubt = new PendingRecord.Attempt(attempt.commitId(), notYet.now());
          base = new SyncPort.Fetched(notYet.now(), base.lockfile());
          last = null;
        } else {
          // refused: a newer lockfile (an earlier send of a commit in doubt may be what made it)
          LOG.debug("Publish to {} met a newer lockfile; fetching it again", settings.port().describe());
          refetch = true;
          last = null;
          if (raceBackoff && !deadline.hasPassed()) {
            Duration wait = raceWait(Duration.between(sent, settings.clock().instant()), ++racesLost,
                settings.maxBackoff(), settings.nextUnit());
            Duration left = deadline.remaining();
            try {
              settings.sleeper().sleep(wait.compareTo(left) > 0 ? left : wait);
            } catch (InterruptedException e) {
              last = new InterruptedOperationException("Cannot publish lockfile change to "
                  + settings.port().describe(), e);
              break;
            }
          }
          continue;
        }
      } catch (OutcomeUnknownException e) {
        if (sending != null) {
          doubt = sending;
        }
        refetch = true;
        last = e;
      } catch (DatastoreUnavailableException | DatastoreBusyException e) {
        // refused before it could land: a commit in doubt stays in doubt; a failed fetch is tried again
        last = e;
      } catch (DatastoreUnsafeException e) {
        if (doubt == null) {
          throw e;
        }
        last = e;
        break;
      } catch (LocalFileException e) {
        if (!writing && doubt == null) {
          throw e;
        }
        if (writing && sending != null) {
          doubt = sending;
        }
        last = e;
        break;
      } catch (RuntimeException e) {
        // anything else once the write was on its way: it may have landed
        if (writing && sending != null) {
          doubt = sending;
        }
        last = e;
        break;
      }
      if (deadline.hasPassed()) {
        break;
      }
      try {
        Duration wait = backoff.next(deadline);
        // one wait serves both: the backoff, and what the store's per-object rate still asks
        Duration paced = settings.port().paceAt(settings.clock().instant());
        if (paced.compareTo(wait) > 0 && paced.compareTo(deadline.remaining()) <= 0) {
          wait = paced;
        }
        settings.sleeper().sleep(wait);
      } catch (InterruptedException e) {
        last = new InterruptedOperationException("Cannot publish lockfile change to " + settings.port().describe(), e);
        break;
      }
    }
    PendingRecord.Attempt open = doubt;
    if (open != null) {
      return new Ending.InFlight(open.commitId(), last);
    }
    if (!priors.isEmpty()) {
      // an earlier write may still land: the change stays in flight
      settings.pending().write(new PendingRecord.Change(recorded(), base.lockfile(), deletions, null, null, List.of(), priors));
      return new Ending.InFlight(priors.get(priors.size() - 1).attempt().commitId(), last);
    }
    settings.pending().write(new PendingRecord.Change(recorded(), base.lockfile(), deletions, null, null));
    return new Ending.Unpublished(last);
  }

  /**
   * Fetches the shared lockfile again; settles a write in doubt by its lineage; rebases what is
   * left onto the fresh lockfile.
   *
   * @return the ending when the loop is over (landed with nothing left, or unprovable), else null
   */
  private @Nullable Ending rebaseOntoFresh() {
    SyncPort.Fetched fresh = settings.port().hydrate();
    Lockfile from = base.lockfile();
    PendingRecord.Attempt attempt = doubt;
    if (attempt != null && fresh.head() != null && fresh.head().includes(attempt.commitId())) {
      LOG.debug("The unanswered write of commit {} to {} landed", attempt.commitId(), settings.port().describe());
      doubt = null;
      priors = List.of();
      landed = landed.then(delta);
      delta = LockfileDelta.EMPTY;
      base = fresh;
      return finish(fresh.lockfile());
    }
    Priors judged = Priors.judge(settings.port(), priors, fresh.head());
    if (judged.landed() != null) {
      // an earlier write landed: this one cannot have; what is left is rebased from what it carried
      LOG.debug("An earlier unanswered write of this change to {} landed", settings.port().describe());
      doubt = null;
      priors = List.of();
      landed = landed.then(judged.landed());
      delta = judged.rest(delta);
      from = judged.landed().applyTo(from);
    } else {
      if (judged.unknown() != null) {
        return unprovable(judged.unknown(), fresh.head(), null);
      }
      priors = judged.open();
      if (attempt != null) {
        Landing landing = settings.port().judge(attempt.commitId(), attempt.parent(), fresh.head());
        LOG.debug("The unanswered write of commit {} to {}: {}", attempt.commitId(), settings.port().describe(), landing);
        switch (landing) {
          case UNKNOWN -> {
            return unprovable(attempt, fresh.head(), null);
          }
          // its parent is current (same bytes): the rebase below keeps the change as it is
          case NOT_YET -> doubt = new PendingRecord.Attempt(attempt.commitId(), fresh.head());
          default -> doubt = null;
        }
      }
    }
    Rebase rebase = Rebase.of(delta, from, fresh.lockfile());
    conflicts.addAll(rebase.conflictsOn(live));
    for (LockfileConflictException.Conflict dropped : rebase.conflictsOutside(live)) {
      warn(LockfileTransaction.dropNotice(dropped));
    }
    LockfileDelta before = delta;
    delta = rebase.kept();
    if (!priors.isEmpty()) {
      // names already as wanted stay in the write while an earlier write of them may still land
      delta = delta.then(Priors.fence(priors, delta, before.applyTo(fresh.lockfile())).restrictedTo(
          rebase.alreadyThere()));
    }
    base = fresh;
    return null;
  }

  /**
   * What the shared lockfile says of a change's earlier writes in doubt, all conditioned on one
   * version: the one that landed (at most one can), else those that still may, and one whose
   * landing cannot be proven.
   *
   * @param landed what the write that landed carried, or null
   * @param open the writes that have not landed yet and still may (their parent is current)
   * @param unknown a write the lineage can prove neither way, or null
   */
  record Priors(@Nullable LockfileDelta landed, List<PendingRecord.Prior> open, PendingRecord.@Nullable Attempt unknown) {

    /**
     * Returns what of {@code delta} the write that landed did not already publish: the names whose
     * target differs from what it carried.
     */
    LockfileDelta rest(LockfileDelta delta) {
      LockfileDelta done = landed;
      if (done == null) {
        return delta;
      }
      return delta.without(delta.names().stream()
          .filter(n -> done.names().contains(n) && done.target(n).equals(delta.target(n))).toList());
    }

    /**
     * Returns, for each name {@code priors} carried that {@code delta} does not hold, its value in
     * {@code target} as a delta entry (a removal when absent): the names a write must carry while
     * an earlier write of them may still land, so that whichever lands first, the other is refused
     * and what the caller wants for those names is what ends up published.
     */
    static LockfileDelta fence(List<PendingRecord.Prior> priors, LockfileDelta delta, Lockfile target) {
      LockfileDelta out = LockfileDelta.EMPTY;
      java.util.Set<ExtensionName> seen = new java.util.HashSet<>(delta.names());
      for (PendingRecord.Prior prior : priors) {
        for (ExtensionName name : prior.delta().names()) {
          if (seen.add(name)) {
            out = out.then(target.entry(name).map(e -> LockfileDelta.upsert(name, e))
                .orElseGet(() -> LockfileDelta.removal(name)));
          }
        }
      }
      return out;
    }

    /** Judges {@code priors} against {@code now}. */
    static Priors judge(SyncPort port, List<PendingRecord.Prior> priors, @Nullable LockfileHead now) {
      List<PendingRecord.Prior> open = new ArrayList<>();
      PendingRecord.Attempt unknown = null;
      for (PendingRecord.Prior prior : priors) {
        PendingRecord.Attempt attempt = prior.attempt();
        switch (port.judge(attempt.commitId(), attempt.parent(), now)) {
          case LANDED -> {
            return new Priors(prior.delta(), List.of(), null);
          }
          case NOT_YET -> open.add(new PendingRecord.Prior(new PendingRecord.Attempt(attempt.commitId(), now),
              prior.delta()));
          case UNKNOWN -> unknown = attempt;
          case NOT_LANDED -> { }
        }
      }
      return new Priors(null, open, unknown);
    }
  }

  private Ending unprovable(PendingRecord.Attempt attempt, @Nullable LockfileHead now,
      @Nullable RuntimeException cause) {
    String commitId = attempt.commitId();
    String reason = "the write of commit " + commitId + " went unanswered and the shared lockfile moved on ("
        + (now == null ? "it no longer exists" : "now version " + now.version().value()
            + now.commitId().map(id -> " of commit " + id).orElse(", written without a commit id"))
        + ") without a lineage that shows whether it landed";
    settings.pending().write(new PendingRecord.Change(recorded(), base.lockfile(), deletions, attempt, reason, List.of(),
        priors));
    LOG.warn("Cannot confirm the lockfile change to {}: {}", settings.port().describe(), reason, cause);
    return new Ending.Unprovable(commitId, now);
  }

  /** Deletes what the published lockfile no longer pins, clears the record and reports the lockfile now. */
  private Ending finish(Lockfile published) {
    return finish(published, true);
  }

  /**
   * Deletes superseded archives only while {@code held} says the global lease is still this run's:
   * a peer that took a lost lease over may pin one of them again before it is deleted, so with the
   * lease gone they are left in place (an archive too many costs bytes; one too few loses an
   * install).
   */
  void deleteOnlyWhile(java.util.function.BooleanSupplier held) {
    this.leaseHeld = held;
  }

  /**
   * Makes a write refused for a newer lockfile wait before it is rebased and sent again (writers
   * that hold no lease): a uniform draw from zero up to the round trip of the refused write,
   * doubling with every race lost, up to the longest wait. Without it (under the lease, where a
   * refusal means a writer that took none), the write is rebased and sent again at once.
   */
  void raceBackoff(boolean value) {
    this.raceBackoff = value;
  }

  /**
   * Waits until this checkout's next lockfile write keeps to the store's per-object rate (GCS: one
   * per second), within the deadline; runs queued meanwhile join the next batch.
   *
   * @throws InterruptedOperationException if interrupted while waiting
   */
  private void pace() {
    Duration wait = settings.port().paceAt(settings.clock().instant());
    if (wait.isZero()) {
      return;
    }
    if (wait.compareTo(deadline.remaining()) > 0) {
      // sent sooner, the store would refuse it for its rate; sent later, past the deadline
      throw new DatastoreBusyException("Cannot publish lockfile change to " + settings.port().describe() + ": the"
          + " store sustains one write of it per " + settings.port().minWriteInterval().toMillis() + " ms, and the"
          + " next one is due after the transaction's deadline", null);
    }
    try {
      settings.sleeper().sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedOperationException("Cannot publish lockfile change to " + settings.port().describe(), e);
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

  private Ending finish(Lockfile published, boolean deleteSuperseded) {
    if (deleteSuperseded && !deletions.isEmpty() && !leaseHeld.getAsBoolean()) {
      warn("Kept " + deletions.size() + " superseded archive(s) in " + settings.port().describe() + ": the global"
          + " lease was lost before they could be deleted, and a peer may pin them again");
      deleteSuperseded = false;
    }
    List<TierPath> unpinned = deleteSuperseded ? unpinned(deletions, published) : List.of();
    if (deleteSuperseded) {
      deletions.stream().filter(p -> !unpinned.contains(p)).forEach(p -> warn("Kept " + p + " in "
          + settings.port().describe() + ": the published lockfile pins it again"));
    }
    for (TierPath path : settings.port().deleteAll(unpinned)) {
      warn("Cannot delete " + path + " from " + settings.port().describe()
          + " after publishing: it changed in between or the store failed; it is left in place");
    }
    try {
      settings.pending().clearSettled();
    } catch (LocalFileException e) {
      warn("Published, but " + e.getMessage() + "; the next transaction finds the commit in the lineage and clears it");
    }
    return new Ending.Published(published);
  }

  /** Returns what this run dropped of an earlier run's change so far, as notices for the next run. */
  private List<String> notices() {
    List<String> out = new ArrayList<>(LockfileTransaction.dropNotices(warnings));
    out.addAll(earlierDrops);
    conflicts.stream().filter(c -> earlier.contains(c.name()))
        .forEach(c -> out.add(LockfileTransaction.dropNotice(c)));
    return out;
  }

  /**
   * Returns the paths of {@code paths} that {@code lockfile} does not pin, in order: every path but
   * an archive path whose name's entry in {@code lockfile} has the archive's SHA-256 as its {@code
   * checksum}.
   */
  static List<TierPath> unpinned(List<TierPath> paths, Lockfile lockfile) {
    return paths.stream().filter(path -> ExtensionArchiveKey.fromTierPath(path)
        .flatMap(key -> lockfile.entry(key.name()).flatMap(LockfileEntry::checksum).filter(key.sha256()::equals))
        .isEmpty()).toList();
  }

  private void warn(String message) {
    LOG.warn(message);
    warnings.add(message);
  }

  /** Returns what was published or proven landed, whole. */
  LockfileDelta published() {
    LockfileDelta all = landed.then(delta);
    return checkOnly.isEmpty() ? all : all.without(checkOnly);
  }

  /** Returns what is left unpublished (the record holds it). */
  LockfileDelta left() {
    return recorded();
  }

  /**
   * Names the write carries at the value the change found them, only to have them checked: a
   * refused write's rebase reports a peer's newer value of one as a conflict. They change nothing,
   * so the pending record never holds them (a later run has nothing of them to publish).
   */
  void checkOnly(Set<ExtensionName> names) {
    this.checkOnly = Set.copyOf(names);
  }

  /** Returns what is left to publish, as the pending record holds it: the delta without the checked names. */
  private LockfileDelta recorded() {
    return checkOnly.isEmpty() ? delta : delta.without(checkOnly);
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
