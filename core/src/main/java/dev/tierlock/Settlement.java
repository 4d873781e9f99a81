package dev.tierlock;

import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;

import dev.tierlock.archive.ExtensionArchiveKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publish loop of one transaction: publish the change, as computed in memory, conditional on
 * the version fetched; on a conflict fetch again and rebase the change name by name; on an
 * unavailable or throttled store wait with jittered backoff; give up after the most attempts or at
 * the deadline, but always make one attempt. Not thread-safe: one per run, on the run's thread.
 *
 * <p><b>The pending record</b> always holds what is left to publish, whole (delta, base,
 * deletions): before each lockfile write it also names the write's commit id and the version it is
 * conditioned on (the {@link PendingChange.Attempt}), and a definite non-landing (precondition
 * failed, store unavailable) removes the attempt again. So a process that dies at any point leaves
 * a record from which the next run can tell whether the write landed.
 *
 * <p><b>A write whose answer was lost</b> is judged by the lineage of the shared lockfile read
 * back ({@link Landing}): landed (even under a later peer's version) ends the loop as published;
 * still the version it was conditioned on, it is retried; anything else cannot be proven either way
 * and ends the run with {@link LockfileOutcomeUnknownException}, never re-applying a name (which
 * could revert a peer).
 *
 * <p><b>Deletions</b> ({@link TransactionContext#deleteAfterPublish}) ride on the publish that
 * writes the lockfile, after it, and only for paths the lockfile being published does not pin: an
 * archive path {@code config/pulled-archives/<name>/<sha256>.tar.gz} is pinned while the entry of
 * {@code <name>} has {@code checksum} {@code <sha256>}. So a rebase that gives a name back to a
 * peer's value (or a replay whose removal was dropped) never deletes the archive that value pins.
 */
final class Settlement {

  private static final Logger LOG = LoggerFactory.getLogger(Settlement.class);

  private final TransactionSettings settings;
  private final Instant deadline;
  private final List<String> warnings;
  private final Set<ExtensionName> live;
  private final List<TierPath> deletions;
  private final List<LockfileConflictException.Conflict> conflicts = new ArrayList<>();
  private LockfileDelta delta;
  private Lockfile base;
  private @Nullable LockfileHead head;
  private PendingChange.@Nullable Attempt inFlight;
  private @Nullable OutcomeUnknownException unanswered;
  private @Nullable LockfileDelta landed;
  private int attempts;
  private @Nullable RuntimeException failure;
  private boolean outcomeUnknown;

  /**
   * Prepares the loop.
   *
   * @param delta the change to publish, made on {@code base}
   * @param base the shared lockfile as fetched at {@code head}
   * @param head the version fetched, or {@code null} when the shared lockfile was absent
   * @param live the names this run's change touched (a conflict on them fails the run; on others,
   *     from a replayed record, it only drops the name with a warning)
   * @param deletions the tier paths to delete after the lockfile is published, unless it pins them
   */
  Settlement(TransactionSettings settings, Instant deadline, List<String> warnings, LockfileDelta delta, Lockfile base,
      @Nullable LockfileHead head, Set<ExtensionName> live, List<TierPath> deletions) {
    this.settings = settings;
    this.deadline = deadline;
    this.warnings = warnings;
    this.delta = delta;
    this.base = base;
    this.head = head;
    this.live = Set.copyOf(live);
    this.deletions = List.copyOf(deletions);
  }

  /**
   * Runs the loop. On return the pending record holds what is left (with the attempt whose outcome
   * stayed unknown, if any), unless everything was published or the outcome is unknown for good.
   *
   * @return whether everything is published; when not, {@link #failure()} says why
   */
  boolean settle() {
    Backoff backoff = new Backoff(settings.firstBackoff(), settings.maxBackoff(), settings::nextUnit);
    boolean refetch = false;
    RuntimeException last = null;
    while (true) {
      boolean outOfAttempts = attempts >= settings.maxAttempts();
      if (attempts > 0 && (outOfAttempts || !settings.clock().instant().isBefore(deadline))) {
        failure = last != null ? last : new TierlockException("lockfile_contended", "the shared lockfile changed before "
            + (attempts == 1 ? "the publish attempt" : "each of the " + attempts + " publish attempts") + ", and "
            + (outOfAttempts ? "no attempt is left" : "the transaction deadline has passed"));
        return false;
      }
      attempts++;
      try {
        if (refetch) {
          if (rebaseOntoFresh()) {
            return true;
          }
          refetch = false;
        }
        if (publishOnce()) {
          return true;
        }
        LOG.debug("Publish to {} met a newer lockfile; fetching it again", settings.port().describe());
        refetch = true;
        last = null;
      } catch (LockfileOutcomeUnknownException e) {
        failure = e;
        outcomeUnknown = true;
        return false;
      } catch (OutcomeUnknownException e) {
        refetch = true;
        last = e;
        unanswered = e;
      } catch (DatastoreUnavailableException | LockfileBusyException e) {
        last = e;
      } catch (RuntimeException e) {
        failure = e;
        return false;
      }
      Duration remaining = Duration.between(settings.clock().instant(), deadline);
      if (remaining.isNegative() || remaining.isZero()) {
        continue;
      }
      try {
        settings.sleeper().sleep(backoff.next(remaining));
      } catch (InterruptedException e) {
        failure = new InterruptedOperationException("Cannot publish lockfile change to " + settings.port().describe(), e);
        return false;
      }
    }
  }

  /**
   * Sends one publish: the lockfile built from {@code delta} on {@code base} (recorded first as the
   * attempt in flight), or only the deletions when the delta is empty.
   *
   * @return whether it was published; false on a conflict (the attempt is cleared: it did not land)
   * @throws OutcomeUnknownException if the write's outcome stayed unknown (the attempt stays)
   */
  private boolean publishOnce() {
    Lockfile publishing = delta.applyTo(base);
    List<TierPath> unpinned = unpinned(deletions, publishing);
    PublishRequest request;
    if (delta.isEmpty()) {
      request = PublishRequest.pathsOnly().withDeletions(unpinned);
    } else {
      String commitId = settings.nextCommitId();
      PendingChange.Attempt attempt = PendingChange.Attempt.of(commitId, head);
      settings.pending().recordAttempt(delta, base, deletions, attempt);
      inFlight = attempt;
      request = PublishRequest.lockfile(head, publishing, commitId).withDeletions(unpinned);
    }
    PublishOutcome outcome;
    try {
      outcome = settings.port().publish(request);
    } catch (OutcomeUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      notLanded();
      throw e;
    }
    if (outcome instanceof PublishOutcome.Published published) {
      inFlight = null;
      deletions.stream().filter(p -> !unpinned.contains(p)).forEach(p -> warn("Kept " + p + " in "
          + settings.port().describe() + ": the published lockfile pins it again"));
      published.notDeleted().forEach(p -> warn("Cannot delete " + p + " from " + settings.port().describe()
          + " after publishing: it changed in between or the store failed; it is left in place"));
      return true;
    }
    notLanded();
    return false;
  }

  /** Forgets the attempt in flight, which did not land, in memory and in the pending record. */
  private void notLanded() {
    if (inFlight != null) {
      inFlight = null;
      settings.pending().record(delta, base, deletions);
    }
  }

  /**
   * Fetches the shared lockfile again; settles an attempt whose outcome was unknown by its lineage;
   * rebases what is left onto the fresh lockfile and records it.
   *
   * @return whether nothing is left to publish
   * @throws LockfileOutcomeUnknownException if an attempt in flight can be proven neither landed nor
   *     not landed
   */
  private boolean rebaseOntoFresh() {
    LockfileHead fresh = settings.port().hydrate().orElse(null);
    Lockfile theirs = settings.repository().refresh();
    PendingChange.Attempt attempt = inFlight;
    if (attempt != null) {
      Landing landing = Landing.of(attempt.commitId(), attempt.parent().orElse(null), fresh);
      LOG.debug("The unanswered write of commit {} to {}: {}", attempt.commitId(), settings.port().describe(), landing);
      if (landing == Landing.UNKNOWN) {
        throw new LockfileOutcomeUnknownException(settings.port().describe(), delta, attempt.commitId(), fresh,
            unanswered);
      }
      inFlight = null;
      if (landing == Landing.LANDED) {
        landed = delta;
        delta = LockfileDelta.EMPTY;
        base = theirs;
        head = fresh;
        if (deletions.isEmpty()) {
          return true;
        }
        settings.pending().record(delta, base, deletions);
        return false;
      }
    }
    Rebase rebase = Rebase.of(delta, base, theirs);
    conflicts.addAll(rebase.conflictsOn(live));
    for (LockfileConflictException.Conflict dropped : rebase.conflictsOutside(live)) {
      warn("Dropped the unpublished change to " + dropped.describe() + ": another checkout changed it since");
    }
    delta = rebase.kept();
    base = theirs;
    head = fresh;
    settings.pending().record(delta, base, deletions);
    settings.repository().replaceAll(delta.applyTo(theirs));
    return delta.isEmpty() && deletions.isEmpty();
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

  /** Returns what is left to publish (all of it when published, including a write found landed by its lineage). */
  LockfileDelta delta() {
    return landed != null ? landed.then(delta) : delta;
  }

  /** Returns the publish attempts made. */
  int attempts() {
    return attempts;
  }

  /** Returns the conflicts found on names this run's change touched. */
  List<LockfileConflictException.Conflict> conflicts() {
    return List.copyOf(conflicts);
  }

  /** Returns whether the loop ended because a write's outcome cannot be known ({@link #failure()} says which). */
  boolean outcomeUnknown() {
    return outcomeUnknown;
  }

  /** Returns why the loop gave up; present only after {@link #settle()} returned false. */
  RuntimeException failure() {
    if (failure == null) {
      throw new IllegalStateException("Cannot describe a settlement failure: the settlement did not fail");
    }
    return failure;
  }
}
