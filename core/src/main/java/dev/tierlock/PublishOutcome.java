package dev.tierlock;

import dev.tierlock.spi.ObjectVersion;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** What a {@link ManagedLockfileSyncPort#publish} achieved. Immutable. */
public sealed interface PublishOutcome {

  /**
   * Everything landed: the create-only paths are present and the lockfile (if requested) was
   * written under its precondition, possibly learned by reading its commit id back after a lost
   * response.
   */
  final class Published implements PublishOutcome {
    private final @Nullable ObjectVersion lockfileVersion;
    private final String commitId;
    private final List<TierPath> notDeleted;

    Published(@Nullable ObjectVersion lockfileVersion, String commitId, List<TierPath> notDeleted) {
      this.lockfileVersion = lockfileVersion;
      this.commitId = commitId;
      this.notDeleted = List.copyOf(notDeleted);
    }

    /** Returns the version the lockfile now has, or empty when no lockfile was published. */
    public Optional<ObjectVersion> lockfileVersion() {
      return Optional.ofNullable(lockfileVersion);
    }

    /** Returns the commit id written in the lockfile's metadata. */
    public String commitId() {
      return commitId;
    }

    /**
     * Returns the paths whose deletion failed or was refused (changed since, or the store failed):
     * best effort, after the lockfile landed.
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
   * The lockfile's precondition failed: someone published since it was hydrated. Nothing of the
   * lockfile changed (create-only paths may have landed; they are content-addressed). Hydrate again
   * and re-apply.
   */
  enum Conflict implements PublishOutcome {
    /** The only instance. */
    INSTANCE
  }
}
