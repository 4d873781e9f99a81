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
 * What one {@link ManagedLockfileSyncPort#publish} uploads: tier paths written create-only first
 * (content-addressed archives: already present means done), then optionally the shared lockfile
 * under a precondition, then tier paths deleted. Only the named paths travel; the cache is never
 * walked. Immutable.
 */
public final class PublishRequest {

  private final @Nullable WriteCondition lockfileCondition;
  private final List<TierPath> createOnly;
  private final List<TierPath> deletions;

  private PublishRequest(@Nullable WriteCondition lockfileCondition, List<TierPath> createOnly, List<TierPath> deletions) {
    this.lockfileCondition = lockfileCondition;
    this.createOnly = List.copyOf(createOnly);
    this.deletions = List.copyOf(deletions);
  }

  /**
   * Returns a request that publishes the lockfile under {@code condition}: {@link
   * WriteCondition#mustMatch} the version hydrated, or {@link WriteCondition#mustNotExist()} when it
   * was absent.
   *
   * @throws IllegalArgumentException for {@link WriteCondition#none()}: the shared lockfile is never
   *     written last-writer-wins
   */
  public static PublishRequest lockfile(WriteCondition condition) {
    if (condition instanceof WriteCondition.None) {
      throw new IllegalArgumentException("Cannot publish the shared lockfile without a precondition");
    }
    return new PublishRequest(condition, List.of(), List.of());
  }

  /** Returns a request that publishes no lockfile, only the paths added with {@link #withCreateOnly}. */
  public static PublishRequest pathsOnly() {
    return new PublishRequest(null, List.of(), List.of());
  }

  /**
   * Returns this request also uploading {@code paths} create-only, before the lockfile.
   *
   * @throws IllegalArgumentException if a path is the lockfile's own
   */
  public PublishRequest withCreateOnly(Collection<TierPath> paths) {
    if (paths.contains(TierPath.LOCKFILE)) {
      throw new IllegalArgumentException("Cannot publish " + TierPath.LOCKFILE + " create-only: it is published last, conditionally");
    }
    return new PublishRequest(lockfileCondition, union(createOnly, paths), deletions);
  }

  /**
   * Returns this request also deleting {@code paths} after the lockfile is published.
   *
   * @throws IllegalArgumentException if a path is the lockfile's own
   */
  public PublishRequest withDeletions(Collection<TierPath> paths) {
    if (paths.contains(TierPath.LOCKFILE)) {
      throw new IllegalArgumentException("Cannot delete " + TierPath.LOCKFILE + " by a publish");
    }
    return new PublishRequest(lockfileCondition, createOnly, union(deletions, paths));
  }

  /** Returns the lockfile's precondition, or empty when the lockfile is not published. */
  public Optional<WriteCondition> lockfileCondition() {
    return Optional.ofNullable(lockfileCondition);
  }

  /** Returns the paths uploaded create-only, in order. */
  public List<TierPath> createOnly() {
    return createOnly;
  }

  /** Returns the paths deleted after the lockfile, in order. */
  public List<TierPath> deletions() {
    return deletions;
  }

  /** Returns whether the request uploads and deletes nothing. */
  public boolean isEmpty() {
    return lockfileCondition == null && createOnly.isEmpty() && deletions.isEmpty();
  }

  private static List<TierPath> union(List<TierPath> first, Collection<TierPath> more) {
    Set<TierPath> all = new LinkedHashSet<>(first);
    all.addAll(more);
    return new ArrayList<>(all);
  }

  @Override
  public String toString() {
    return "PublishRequest[lockfile=" + lockfileCondition + ", createOnly=" + createOnly + ", deletions=" + deletions + "]";
  }
}
