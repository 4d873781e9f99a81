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
   * A change that was not published yet.
   *
   * <p>{@link #base()} holds, for the names the change touches, the entries of the shared lockfile
   * the change was made on (a name it lacks was absent): a replay compares them with a fresh fetch
   * so that it never silently reverts a peer's newer change to the same name. A record written
   * ahead of a change that never settled is <em>incomplete</em>: its base is then the whole shared
   * lockfile fetched before the change, and the change's local effects are recovered by comparing
   * the local lockfile with it. The tier paths the change published with the lockfile (archives,
   * create-only, and deletions) are kept too, so that a replay publishes them again.
   */
  final class Recorded implements PendingChange {
    private final LockfileDelta delta;
    private final @Nullable Lockfile base;
    private final boolean incomplete;
    private final List<TierPath> createOnly;
    private final List<TierPath> deletions;

    Recorded(LockfileDelta delta, @Nullable Lockfile base, boolean incomplete, List<TierPath> createOnly,
        List<TierPath> deletions) {
      if (incomplete && base == null) {
        throw new IllegalArgumentException("Cannot describe an incomplete pending change without its base");
      }
      this.delta = delta;
      this.base = base;
      this.incomplete = incomplete;
      this.createOnly = List.copyOf(createOnly);
      this.deletions = List.copyOf(deletions);
    }

    /** Returns the unpublished change. */
    public LockfileDelta delta() {
      return delta;
    }

    /** Returns the shared entries the change was made on, if recorded. */
    public Optional<Lockfile> base() {
      return Optional.ofNullable(base);
    }

    /** Returns the tier paths to publish create-only with the change. */
    public List<TierPath> createOnly() {
      return createOnly;
    }

    /** Returns the tier paths to delete after the change is published. */
    public List<TierPath> deletions() {
      return deletions;
    }

    /** Returns whether the record was written ahead of a change that did not settle. */
    public boolean isIncomplete() {
      return incomplete;
    }

    /** Returns the whole shared lockfile fetched before the change, when the record is incomplete. */
    public Optional<Lockfile> incompleteBase() {
      return incomplete ? Optional.ofNullable(base) : Optional.empty();
    }

    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof Recorded other && other.delta.equals(delta) && other.incomplete == incomplete
          && Objects.equals(other.base, base) && other.createOnly.equals(createOnly) && other.deletions.equals(deletions);
    }

    @Override
    public int hashCode() {
      return Objects.hash(delta, base, incomplete, createOnly, deletions);
    }

    @Override
    public String toString() {
      return "Recorded[delta=" + delta + ", base=" + base + ", incomplete=" + incomplete + ", createOnly=" + createOnly
          + ", deletions=" + deletions + "]";
    }
  }

  /**
   * A record exists but cannot be read (unreadable, not JSON, wrong version, bad entry, an
   * incomplete record without a base).
   *
   * @param reason why it cannot be read
   */
  record Unknown(String reason) implements PendingChange {}
}
