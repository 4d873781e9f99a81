package dev.tierlock;

import dev.tierlock.spi.WriteCondition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What one {@link ManagedLockfileSyncPort#publish} sends: optionally a new version of the shared
 * lockfile (the content itself, the version it is built on and its commit id), then tier paths to
 * delete. The lockfile published is exactly the content given, never whatever the local cache holds
 * by then; only the named paths travel, the cache is never walked. Immutable.
 */
public final class PublishRequest {

  private final @Nullable Lockfile lockfile;
  private final @Nullable LockfileHead parent;
  private final @Nullable String commitId;
  private final List<TierPath> deletions;

  private PublishRequest(@Nullable Lockfile lockfile, @Nullable LockfileHead parent, @Nullable String commitId,
      List<TierPath> deletions) {
    this.lockfile = lockfile;
    this.parent = parent;
    this.commitId = commitId;
    this.deletions = List.copyOf(deletions);
  }

  /**
   * Returns a request that publishes {@code content} as the version after {@code parent}: the write
   * is conditional on {@code parent}'s version and carries {@code commitId} and {@code parent}'s
   * lineage in its metadata.
   *
   * @param parent the version the write is conditioned on (its lineage goes into the metadata)
   * @param content the whole lockfile to publish
   * @param commitId the write's fresh commit id
   * @return the request
   * @throws IllegalArgumentException if {@code commitId} is not a commit id ({@link LockfileHead#isCommitId})
   */
  public static PublishRequest lockfileOn(LockfileHead parent, Lockfile content, String commitId) {
    return lockfile(parent, content, commitId);
  }

  /**
   * Returns a request that creates the shared lockfile with {@code content}: the write is
   * create-only and carries {@code commitId} in its metadata.
   *
   * @param content the whole lockfile to publish
   * @param commitId the write's fresh commit id
   * @return the request
   * @throws IllegalArgumentException if {@code commitId} is not a commit id
   */
  public static PublishRequest newLockfile(Lockfile content, String commitId) {
    return lockfile(null, content, commitId);
  }

  /** Returns {@link #lockfileOn} when {@code parent} is present, {@link #newLockfile} otherwise. */
  static PublishRequest lockfile(@Nullable LockfileHead parent, Lockfile content, String commitId) {
    if (!LockfileHead.isCommitId(commitId)) {
      throw new IllegalArgumentException("Cannot use commit id \"" + commitId + "\": letters, digits and -, 1 to 64 characters");
    }
    return new PublishRequest(content, parent, commitId, List.of());
  }

  /** {@return a request that publishes no lockfile, only the deletions added with {@link #withDeletions}} */
  public static PublishRequest pathsOnly() {
    return new PublishRequest(null, null, null, List.of());
  }

  /**
   * Returns this request also deleting {@code paths} after the lockfile is published.
   *
   * @param paths the tier paths to delete once the lockfile is published
   * @return a new request; this one is unchanged
   * @throws IllegalArgumentException if a path is the lockfile's own
   */
  public PublishRequest withDeletions(Collection<TierPath> paths) {
    if (paths.contains(TierPath.LOCKFILE)) {
      throw new IllegalArgumentException("Cannot delete " + TierPath.LOCKFILE + " by a publish");
    }
    Set<TierPath> all = new LinkedHashSet<>(deletions);
    all.addAll(paths);
    return new PublishRequest(lockfile, parent, commitId, new ArrayList<>(all));
  }

  /** {@return the lockfile content to publish, or empty when no lockfile is published} */
  public Optional<Lockfile> lockfile() {
    return Optional.ofNullable(lockfile);
  }

  /** {@return the version the published lockfile is built on; empty when it is created, or not published} */
  public Optional<LockfileHead> parent() {
    return Optional.ofNullable(parent);
  }

  /** {@return the commit id of the lockfile write, or empty when no lockfile is published} */
  public Optional<String> commitId() {
    return Optional.ofNullable(commitId);
  }

  /**
   * Returns the lockfile write's precondition: {@link WriteCondition#mustMatch} the parent's version,
   * or {@link WriteCondition#mustNotExist()} for a create; empty when no lockfile is published.
   *
   * @return the precondition, or empty
   */
  public Optional<WriteCondition> lockfileCondition() {
    if (lockfile == null) {
      return Optional.empty();
    }
    return Optional.of(parent == null ? WriteCondition.mustNotExist() : WriteCondition.mustMatch(parent.version()));
  }

  /** {@return the paths deleted after the lockfile, in order} */
  public List<TierPath> deletions() {
    return deletions;
  }

  /** {@return whether the request publishes and deletes nothing} */
  public boolean isEmpty() {
    return lockfile == null && deletions.isEmpty();
  }

  @Override
  public String toString() {
    return "PublishRequest[lockfile=" + lockfileCondition().map(Object::toString).orElse("none")
        + (commitId == null ? "" : ", commit " + commitId) + ", deletions=" + deletions + "]";
  }
}
