package dev.tierlock;

import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publish loop of one transaction: publish the change conditional on the version fetched; on a
 * conflict (or an unanswered write) fetch again and rebase the change name by name; on an
 * unavailable or throttled store wait with jittered backoff; give up after the most attempts or at
 * the deadline. Keeps the pending record in step with what is left to publish. Not thread-safe: one
 * per run, on the run's thread.
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
  private @Nullable ObjectVersion version;
  private int attempts;
  private @Nullable RuntimeException failure;

  /**
   * Prepares the loop.
   *
   * @param delta the change to publish, made on {@code base}
   * @param base the shared lockfile as fetched at {@code version}
   * @param version the version fetched, or {@code null} when the shared lockfile was absent
   * @param live the names this run's change touched (a conflict on them fails the run; on others,
   *     from a replayed record, it only drops the name with a warning)
   * @param deletions the tier paths to delete after the lockfile is published, unless it pins them
   */
  Settlement(TransactionSettings settings, Instant deadline, List<String> warnings, LockfileDelta delta, Lockfile base,
      @Nullable ObjectVersion version, Set<ExtensionName> live, List<TierPath> deletions) {
    this.settings = settings;
    this.deadline = deadline;
    this.warnings = warnings;
    this.delta = delta;
    this.base = base;
    this.version = version;
    this.live = Set.copyOf(live);
    this.deletions = List.copyOf(deletions);
  }

  /**
   * Runs the loop.
   *
   * @return whether everything is published; when not, {@link #failure()} says why and the pending
   *     record holds what is left
   */
  boolean settle() {
    Backoff backoff = new Backoff(settings.firstBackoff(), settings.maxBackoff(), settings::nextUnit);
    boolean refetch = false;
    RuntimeException last = null;
    while (true) {
      Instant now = settings.clock().instant();
      if (attempts >= settings.maxAttempts() || !now.isBefore(deadline)) {
        failure = last != null ? last : new TierlockException("lockfile_contended",
            "the shared lockfile changed before every publish attempt");
        return false;
      }
      attempts++;
      try {
        if (refetch) {
          rebaseOntoFresh();
          refetch = false;
          if (delta.isEmpty() && deletions.isEmpty()) {
            return true;
          }
        }
        Lockfile publishing = delta.applyTo(base);
        List<TierPath> unpinned = unpinned(deletions, publishing);
        PublishRequest request = (delta.isEmpty() ? PublishRequest.pathsOnly() : PublishRequest.lockfile(condition()))
            .withDeletions(unpinned);
        PublishOutcome outcome = settings.port().publish(request);
        if (outcome instanceof PublishOutcome.Published published) {
          deletions.stream().filter(p -> !unpinned.contains(p)).forEach(p -> warn("Kept " + p + " in "
              + settings.port().describe() + ": the published lockfile pins it again"));
          published.notDeleted().forEach(p -> warn("Cannot delete " + p + " from " + settings.port().describe()
              + " after publishing: it changed in between or the store failed; it is left in place"));
          return true;
        }
        LOG.debug("Publish to {} met a newer lockfile; fetching it again", settings.port().describe());
        refetch = true;
        last = null;
      } catch (OutcomeUnknownException e) {
        refetch = true;
        last = e;
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

  private void rebaseOntoFresh() {
    version = settings.port().hydrate().orElse(null);
    Lockfile theirs = settings.repository().refresh();
    Rebase rebase = Rebase.of(delta, base, theirs);
    conflicts.addAll(rebase.conflictsOn(live));
    for (LockfileConflictException.Conflict dropped : rebase.conflictsOutside(live)) {
      warn("Dropped the unpublished change to " + dropped.describe() + ": another checkout changed it since");
    }
    delta = rebase.kept();
    base = theirs;
    settings.pending().record(delta, base, List.of(), deletions);
    settings.repository().replaceAll(delta.applyTo(theirs));
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

  private WriteCondition condition() {
    return version == null ? WriteCondition.mustNotExist() : WriteCondition.mustMatch(version);
  }

  private void warn(String message) {
    LOG.warn(message);
    warnings.add(message);
  }

  /** Returns what is left to publish (all of it when published). */
  LockfileDelta delta() {
    return delta;
  }

  /** Returns the shared lockfile the remaining change is based on. */
  Lockfile base() {
    return base;
  }

  /** Returns the tier paths deleted after the change. */
  List<TierPath> deletions() {
    return deletions;
  }

  /** Returns the publish attempts made. */
  int attempts() {
    return attempts;
  }

  /** Returns the conflicts found on names this run's change touched. */
  List<LockfileConflictException.Conflict> conflicts() {
    return List.copyOf(conflicts);
  }

  /** Returns why the loop gave up; present only after {@link #settle()} returned false. */
  RuntimeException failure() {
    if (failure == null) {
      throw new IllegalStateException("Cannot describe a settlement failure: the settlement did not fail");
    }
    return failure;
  }
}
