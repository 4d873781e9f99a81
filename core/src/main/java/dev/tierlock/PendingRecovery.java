package dev.tierlock;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovers what a checkout left unpublished, for the next {@link LockfileTransaction} run: a change
 * whose publish failed, a change interrupted by a crash, a publish whose process died before it
 * learned the outcome, a record that cannot be read, and a record of the original tool. Never
 * re-applies a name unless it can prove that doing so reverts nobody's published change:
 *
 * <ul>
 *   <li>a recorded publish {@link PendingChange.Attempt attempt} is judged by the shared lockfile's
 *       lineage ({@link Landing}): landed, nothing to replay; did not land, replay; unknown, drop
 *       every name (with a warning), since the write may have landed and a peer changed it since;
 *   <li>a record written ahead of a change that was interrupted is recovered from the local
 *       lockfile: nothing when it still holds what was last fetched or published, otherwise its
 *       difference from the base the record kept;
 *   <li>a record that cannot be read is recovered as the local lockfile's difference from the copy
 *       of what was last fetched or published, rebased with that copy as base; without that copy
 *       nothing is recovered (never "every local name the shared lockfile lacks");
 *   <li>a record without a base (the original tool's) re-applies nothing that differs from the
 *       fetched lockfile.
 * </ul>
 *
 * <p>Runs on the transaction's thread under the global lease and the checkout's transaction lock.
 */
final class PendingRecovery {

  private static final Logger LOG = LoggerFactory.getLogger(PendingRecovery.class);

  private final TransactionSettings settings;
  private final List<String> warnings;

  PendingRecovery(TransactionSettings settings, List<String> warnings) {
    this.settings = settings;
    this.warnings = warnings;
  }

  /**
   * What a pending record asks to replay: a change, the shared entries it was made on ({@code null}
   * when unknown), the tier paths to delete once it is published, and the publish attempt that may
   * have landed.
   */
  record Prior(boolean exists, LockfileDelta delta, @Nullable Lockfile base, List<TierPath> deletions,
      PendingChange.@Nullable Attempt attempt) {
    static final Prior NONE = new Prior(false, LockfileDelta.EMPTY, null, List.of(), null);
  }

  /**
   * What the replay keeps: the change to re-apply on the fetched lockfile and the deletions.
   *
   * @param delta the part of the pending change to publish again
   * @param deletions the tier paths to delete once the lockfile is published
   */
  record Replay(LockfileDelta delta, List<TierPath> deletions) {
    static final Replay NONE = new Replay(LockfileDelta.EMPTY, List.of());
  }

  /**
   * Reads the pending record (and, to recover a change the record does not hold, the local lockfile
   * and the copy of what was last fetched); must run before the next hydrate replaces the local
   * lockfile. A change recovered from local files is recorded at once, whole, so that the hydrate
   * cannot lose it.
   */
  Prior read() {
    PendingChange record = settings.pending().read();
    if (record instanceof PendingChange.Recorded recorded) {
      if (!recorded.isIncomplete()) {
        return new Prior(true, recorded.delta(), recorded.base().orElse(null), recorded.deletions(),
            recorded.attempt().orElse(null));
      }
      Lockfile base = recorded.incompleteBase().orElseThrow();
      boolean neverWritten = base.isEmpty() && !Files.exists(settings.repository().path());
      Optional<Lockfile> local = neverWritten ? Optional.of(Lockfile.EMPTY) : readLocal();
      if (local.isEmpty()) {
        warn("The local lockfile of an interrupted change is unreadable; replaying the change recorded before it ran");
        return persisted(recorded.delta(), base, recorded.deletions());
      }
      boolean untouched = settings.port().lastSeen().map(seen -> LockfileDelta.diff(seen, local.get()).isEmpty())
          .orElse(false);
      return persisted(untouched ? LockfileDelta.EMPTY : LockfileDelta.diff(base, local.get()), base,
          recorded.deletions());
    }
    if (record instanceof PendingChange.Unknown unknown) {
      Optional<Lockfile> seen = settings.port().lastSeen();
      Optional<Lockfile> local = readLocal();
      if (seen.isEmpty() || local.isEmpty()) {
        warn("Cannot read the pending-change record " + settings.pending().path() + ": " + unknown.reason()
            + "; the local change since the last fetch cannot be told apart (no intact copy of that fetch, or"
            + " an unreadable local lockfile), so nothing is recovered");
        return new Prior(true, LockfileDelta.EMPTY, null, List.of(), null);
      }
      warn("Cannot read the pending-change record " + settings.pending().path() + ": " + unknown.reason()
          + "; recovering the local change since the last fetch");
      return persisted(LockfileDelta.diff(seen.get(), local.get()), seen.get(), List.of());
    }
    return Prior.NONE;
  }

  private Prior persisted(LockfileDelta delta, Lockfile base, List<TierPath> deletions) {
    settings.pending().record(delta, base, deletions);
    return new Prior(true, delta, base, deletions, null);
  }

  /**
   * Returns what of {@code prior} to publish on the freshly fetched lockfile, warning about every
   * name dropped.
   *
   * @param head the version fetched (with its lineage), or {@code null} when the lockfile is absent
   * @param fetched the lockfile fetched
   */
  Replay replay(Prior prior, @Nullable LockfileHead head, Lockfile fetched) {
    if (!prior.exists()) {
      return Replay.NONE;
    }
    PendingChange.Attempt attempt = prior.attempt();
    if (attempt != null) {
      Landing landing = Landing.of(attempt.commitId(), attempt.parent().orElse(null), head);
      LOG.debug("The pending change's publish of commit {} to {}: {}", attempt.commitId(), settings.port().describe(),
          landing);
      if (landing == Landing.LANDED) {
        return new Replay(LockfileDelta.EMPTY, prior.deletions());
      }
      if (landing == Landing.UNKNOWN) {
        for (LockfileConflictException.Conflict dropped : Rebase.of(prior.delta(), null, fetched).conflicts()) {
          warn("Dropped the unpublished change to " + dropped.describe() + ": its publish (commit "
              + attempt.commitId() + ") went unanswered and the shared lockfile has moved on without it in its"
              + " lineage, so it may have landed and been changed since");
        }
        return new Replay(LockfileDelta.EMPTY, prior.deletions());
      }
    }
    Rebase rebase = Rebase.of(prior.delta(), prior.base(), fetched);
    for (LockfileConflictException.Conflict dropped : rebase.conflicts()) {
      warn("Dropped the unpublished change to " + dropped.describe() + (prior.base() == null
          ? ": the pending record does not say what it was made on (an older tool's record), so it could revert"
              + " another checkout's change"
          : ": another checkout changed it since"));
    }
    return new Replay(rebase.kept(), prior.deletions());
  }

  private Optional<Lockfile> readLocal() {
    if (!Files.exists(settings.repository().path())) {
      warn("The local lockfile " + settings.repository().path() + " is missing");
      return Optional.empty();
    }
    try {
      return Optional.of(settings.repository().refresh());
    } catch (LockfileFormatException | LocalFileException e) {
      warn(e.getMessage());
      return Optional.empty();
    }
  }

  private void warn(String message) {
    LOG.warn(message);
    warnings.add(message);
  }

  static List<TierPath> union(List<TierPath> first, List<TierPath> second) {
    List<TierPath> all = new ArrayList<>(first);
    second.stream().filter(p -> !all.contains(p)).forEach(all::add);
    return List.copyOf(all);
  }
}
