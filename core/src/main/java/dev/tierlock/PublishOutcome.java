package dev.tierlock;

import dev.tierlock.spi.ObjectVersion;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** What a {@link ManagedLockfileSyncPort#publish} achieved. Immutable. */
public sealed interface PublishOutcome {

  /**
   * Everything landed: the lockfile (if requested) was written under its precondition, possibly
   * learned by reading the commit lineage back after a lost response, and the deletions were made
   * (best effort).
   */
  final class Published implements PublishOutcome {
    private final @Nullable ObjectVersion lockfileVersion;
    private final @Nullable String commitId;
    private final List<TierPath> notDeleted;

    Published(@Nullable ObjectVersion lockfileVersion, @Nullable String commitId, List<TierPath> notDeleted) {
      this.lockfileVersion = lockfileVersion;
      this.commitId = commitId;
      this.notDeleted = List.copyOf(notDeleted);
    }

    /**
     * Returns the version the lockfile write produced; empty when no lockfile was published, or when
     * the write was learned to have landed only from a later version's lineage (a peer published on
     * top of it before the answer was read back).
     *
     * @return the version written, or empty
     */
    public Optional<ObjectVersion> lockfileVersion() {
      return Optional.ofNullable(lockfileVersion);
    }

    /** {@return the commit id written in the lockfile's metadata, or empty when no lockfile was published} */
    public Optional<String> commitId() {
      return Optional.ofNullable(commitId);
    }

    /**
     * Returns the paths whose deletion failed or was refused (changed since, or the store failed):
     * best effort, after the lockfile landed.
     *
     * @return the paths left in place, in request order
     */
    public List<TierPath> notDeleted() {
      return notDeleted;
    }

    @Override
    public String toString() {
      return "Published[" + lockfileVersion + ", commit " + commitId + ", notDeleted " + notDeleted + "]";
    }
  }

  /**
   * The lockfile write did not land: its precondition failed (someone published since the parent
   * version), or a write whose answer was lost provably did not land (the lockfile is still the
   * parent version). Nothing of the lockfile changed. Hydrate again and re-apply.
   */
  enum Conflict implements PublishOutcome {
    /** The only instance. */
    INSTANCE
  }
}
