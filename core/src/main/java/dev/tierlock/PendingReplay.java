package dev.tierlock;

import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a checkout's pending record contributes to a run: a write in flight judged by the lineage,
 * what provably did not land rebased onto the fetched lockfile, and the failures that name it. Not
 * thread-safe: used under the checkout's transaction lock.
 */
final class PendingReplay {

  private static final Logger LOG = LoggerFactory.getLogger(PendingReplay.class);

  private final TransactionSettings settings;
  private final String description;

  PendingReplay(TransactionSettings settings, String description) {
    this.settings = settings;
    this.description = description;
  }

  /** What a pending record contributes to a run. */
  record Replay(LockfileDelta delta, List<TierPath> deletions, Set<ExtensionName> live,
      List<LockfileConflictException.Conflict> conflicts, List<PendingRecord.Prior> priors) {
    static final Replay NONE = new Replay(LockfileDelta.EMPTY, List.of(), Set.of(), List.of(), List.of());
  }

  /**
   * Settles a pending change against the fetched lockfile: a write in flight is judged by the
   * lineage (landed: nothing to re-apply; unprovable: the record is marked and the run stops,
   * unless the caller asked to re-apply); the rest is rebased, dropping names a peer changed since.
   *
   * @throws LockfileOutcomeUnknownException if a write of the change cannot be proven either way
   */
  Replay replay(PendingRecord.Stored stored, SyncPort.Fetched fetched, LockfileTransaction.Resolution resolution,
      List<String> warnings) {
    if (!(stored instanceof PendingRecord.Change change)) {
      return Replay.NONE;
    }
    boolean reapply = resolution == LockfileTransaction.Resolution.REAPPLY;
    PendingRecord.Attempt attempt = change.attempt();
    LockfileHead now = fetched.head();
    if (attempt != null && now != null && now.includes(attempt.commitId())) {
      LOG.debug("The pending change's write of commit {} to {} landed", attempt.commitId(), description);
      return new Replay(LockfileDelta.EMPTY, change.deletions(), Set.of(), List.of(), List.of());
    }
    Lockfile base = change.base();
    LockfileDelta recorded = change.delta();
    List<PendingRecord.Prior> priors = new ArrayList<>();
    PublishLoop.Priors judged = PublishLoop.Priors.judge(settings.port(), change.priors(), now);
    PendingRecord.Attempt unknown = judged.unknown();
    if (judged.landed() != null) {
      // an earlier write of the change landed (so the latest did not): rebase from what it carried
      base = base == null ? null : judged.landed().applyTo(base);
      recorded = judged.rest(recorded);
      unknown = null;
    } else {
      priors.addAll(judged.open());
      if (attempt != null) {
        Landing landing = settings.port().judge(attempt.commitId(), attempt.parent(), now);
        LOG.debug("The pending change's write of commit {} to {}: {}", attempt.commitId(), description, landing);
        if (landing == Landing.UNKNOWN) {
          unknown = attempt;
        } else if (landing == Landing.NOT_YET) {
          // it may still arrive: kept in doubt beside the write this run sends
          priors.add(new PendingRecord.Prior(new PendingRecord.Attempt(attempt.commitId(), now), change.delta()));
        }
      }
    }
    if (unknown != null && !reapply) {
      PendingRecord.Change marked = change.unknown("its write (commit " + unknown.commitId() + ") went unanswered and"
          + " the shared lockfile has moved on (now " + (now == null ? "absent" : "version " + now.version().value())
          + ") without a lineage that shows whether it landed");
      settings.pending().write(marked);
      throw blocked(marked, null, warnings);
    }

    Rebase rebase = Rebase.of(recorded, base, fetched.lockfile());
    if (!reapply) {
      for (LockfileConflictException.Conflict dropped : rebase.conflicts()) {
        warn(warnings, LockfileTransaction.DROPPED + dropped.describe() + (change.base() == null
            ? ": the pending record does not say what it was made on (an older tool's record), so it could revert"
                + " another checkout's change"
            : ": another checkout changed it since"));
      }
    }
    return new Replay(rebase.kept(), change.deletions(), reapply ? change.delta().names() : Set.of(),
        reapply ? rebase.conflicts() : List.of(), priors);
  }

  /** Returns the failure that says {@code stored} blocks this checkout. */
  LockfileOutcomeUnknownException blocked(PendingRecord.Stored stored, @Nullable Throwable cause,
      List<String> warnings) {
    PendingChange view = settings.pending().view(stored);
    if (view == null) {
      throw new IllegalStateException("Cannot describe a pending change of " + description + ": none is recorded");
    }
    return new LockfileOutcomeUnknownException(description, view, cause, warnings);
  }

  /** Deletes the record, which holds nothing left to publish; a failure is a warning. */
  void clearQuietly(List<String> warnings) {
    try {
      settings.pending().clearSettled();
    } catch (LocalFileException e) {
      warn(warnings, e.getMessage() + "; it holds nothing left to publish");
    }
  }

  /**
   * Rewrites the record without its notices once this run is about to tell its caller (a record
   * that stays behind would otherwise tell the next run again); best effort: failing to, the next
   * run tells them again.
   */
  void forgetNotices(List<String> warnings) {
    try {
      if (settings.pending().read() instanceof PendingRecord.Change c && !c.notices().isEmpty()) {
        settings.pending().write(c.withoutNotices());
      }
    } catch (LocalFileException e) {
      warn(warnings, e.getMessage() + "; what it notes is told again by the next transaction");
    }
  }

  /**
   * Fetches the shared lockfile by {@code how}.
   *
   * @throws ManagedLockfileUnavailableException if the store failed for a passing reason
   */
  static SyncPort.Fetched fetch(Supplier<SyncPort.Fetched> how, String description) {
    try {
      return how.get();
    } catch (DatastoreUnavailableException | DatastoreBusyException | OutcomeUnknownException e) {
      throw new ManagedLockfileUnavailableException("Cannot fetch the shared lockfile from " + description, e);
    }
  }

  private static void warn(List<String> warnings, String message) {
    LOG.warn(message);
    warnings.add(message);
  }
}
