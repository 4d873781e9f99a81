package dev.tierlock;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What {@link PendingChangeStore#read()} found: no record, a recorded unpublished change, or a
 * record that cannot be read. Immutable.
 */
public sealed interface PendingChange {

  /** No change is waiting to be published. */
  enum None implements PendingChange {
    /** The only instance. */
    INSTANCE
  }

  /**
   * A lockfile write that was sent, or about to be, and may have landed: its commit id and the
   * version it was conditioned on. A replay judges from the shared lockfile's lineage whether it
   * landed before publishing anything again. Immutable.
   */
  final class Attempt {
    private final String commitId;
    private final @Nullable LockfileHead parent;

    private Attempt(String commitId, @Nullable LockfileHead parent) {
      if (!LockfileHead.isCommitId(commitId)) {
        throw new IllegalArgumentException("Cannot use commit id \"" + commitId + "\": letters, digits and -, 1 to 64 characters");
      }
      this.commitId = commitId;
      this.parent = parent;
    }

    /**
     * Returns the attempt to write commit {@code commitId} conditional on {@code parent}.
     *
     * @param parent the version the write is conditioned on
     * @param commitId the write's commit id
     * @return the attempt
     * @throws IllegalArgumentException if {@code commitId} is not a commit id
     */
    public static Attempt on(LockfileHead parent, String commitId) {
      return new Attempt(commitId, parent);
    }

    /**
     * Returns the attempt to create the shared lockfile with commit {@code commitId}.
     *
     * @param commitId the write's commit id
     * @return the attempt
     * @throws IllegalArgumentException if {@code commitId} is not a commit id
     */
    public static Attempt creating(String commitId) {
      return new Attempt(commitId, null);
    }

    static Attempt of(String commitId, @Nullable LockfileHead parent) {
      return new Attempt(commitId, parent);
    }

    /** {@return the write's commit id} */
    public String commitId() {
      return commitId;
    }

    /** {@return the version the write was conditioned on; empty for a create} */
    public Optional<LockfileHead> parent() {
      return Optional.ofNullable(parent);
    }

    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof Attempt other && other.commitId.equals(commitId) && Objects.equals(other.parent, parent);
    }

    @Override
    public int hashCode() {
      return Objects.hash(commitId, parent);
    }

    @Override
    public String toString() {
      return "Attempt[commit " + commitId + " on " + (parent == null ? "nothing" : parent) + "]";
    }
  }

  /**
   * A change that was not published yet.
   *
   * <p>{@link #base()} holds, for the names the change touches, the entries of the shared lockfile
   * the change was made on (a name it lacks was absent): a replay compares them with a fresh fetch
   * so that it never silently reverts a peer's newer change to the same name. A record without a
   * base (written by an older tool) re-applies nothing that differs from a fresh fetch. A record
   * written ahead of a change that never settled is <em>incomplete</em>: its base is then the whole
   * shared lockfile fetched before the change, and the change's local effects are recovered by
   * comparing the local lockfile with it. The tier paths to delete once the change is published are
   * kept too, and so is the {@link #attempt()} of a publish that may have landed.
   */
  final class Recorded implements PendingChange {
    private final LockfileDelta delta;
    private final @Nullable Lockfile base;
    private final boolean incomplete;
    private final List<TierPath> deletions;
    private final @Nullable Attempt attempt;

    Recorded(LockfileDelta delta, @Nullable Lockfile base, boolean incomplete, List<TierPath> deletions,
        @Nullable Attempt attempt) {
      if (incomplete && base == null) {
        throw new IllegalArgumentException("Cannot describe an incomplete pending change without its base");
      }
      if (incomplete && attempt != null) {
        throw new IllegalArgumentException("Cannot describe an incomplete pending change with a publish attempt");
      }
      this.delta = delta;
      this.base = base;
      this.incomplete = incomplete;
      this.deletions = List.copyOf(deletions);
      this.attempt = attempt;
    }

    /** {@return the unpublished change} */
    public LockfileDelta delta() {
      return delta;
    }

    /** {@return the shared entries the change was made on, if recorded} */
    public Optional<Lockfile> base() {
      return Optional.ofNullable(base);
    }

    /** {@return the tier paths to delete after the change is published} */
    public List<TierPath> deletions() {
      return deletions;
    }

    /** {@return the lockfile write that was sent (or about to be) and may have landed, if any} */
    public Optional<Attempt> attempt() {
      return Optional.ofNullable(attempt);
    }

    /** {@return whether the record was written ahead of a change that did not settle} */
    public boolean isIncomplete() {
      return incomplete;
    }

    /** {@return the whole shared lockfile fetched before the change, when the record is incomplete} */
    public Optional<Lockfile> incompleteBase() {
      return incomplete ? Optional.ofNullable(base) : Optional.empty();
    }

    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof Recorded other && other.delta.equals(delta) && other.incomplete == incomplete
          && Objects.equals(other.base, base) && other.deletions.equals(deletions)
          && Objects.equals(other.attempt, attempt);
    }

    @Override
    public int hashCode() {
      return Objects.hash(delta, base, incomplete, deletions, attempt);
    }

    @Override
    public String toString() {
      return "Recorded[delta=" + delta + ", base=" + base + ", incomplete=" + incomplete + ", deletions=" + deletions
          + ", attempt=" + attempt + "]";
    }
  }

  /**
   * A record exists but cannot be read (unreadable, not JSON, unknown version, bad entry, an
   * incomplete record without a base).
   *
   * @param reason why it cannot be read
   */
  record Unknown(String reason) implements PendingChange {}
}
