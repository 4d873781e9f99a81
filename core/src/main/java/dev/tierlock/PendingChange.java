package dev.tierlock;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A change of this checkout that is recorded but not known to be in the shared lockfile, as
 * {@link LockfileTransaction#pending()} reports it. The record lives in the checkout's state
 * directory and is never synced. Immutable.
 *
 * <p>What happens next depends on its {@link #state()}: an {@link State#UNPUBLISHED} or {@link
 * State#IN_FLIGHT} change is settled by the next transaction on this checkout on its own; an
 * {@link State#OUTCOME_UNKNOWN} or {@link State#UNREADABLE} one makes every transaction fail with
 * {@link LockfileOutcomeUnknownException} until the caller decides: {@link
 * LockfileTransaction#reapplyPending()} or {@link LockfileTransaction#discardPending()} (on the
 * command line, {@code tierlock pending apply} or {@code tierlock pending discard}).
 */
public final class PendingChange {

  /** Where a recorded change stands. */
  public enum State {
    /** Not published: its last attempt was refused or never sent. The next transaction publishes it. */
    UNPUBLISHED,
    /**
     * A write of it was sent and its answer was lost. The next transaction reads the shared
     * lockfile's lineage back: landed, it is done; not landed, it is published again; neither
     * provable, it becomes {@link #OUTCOME_UNKNOWN}.
     */
    IN_FLIGHT,
    /**
     * Whether it landed cannot be proven (the shared lockfile moved on further than its lineage
     * reaches, or another tool wrote it). It is never dropped and never re-applied on its own:
     * every transaction fails until the caller re-applies or discards it.
     */
    OUTCOME_UNKNOWN,
    /**
     * The record cannot be read: damaged, or written by a newer Tierlock. Every transaction fails
     * until it is discarded (or published with the version that wrote it).
     */
    UNREADABLE
  }

  private final State state;
  private final LockfileDelta delta;
  private final @Nullable String commitId;
  private final @Nullable String reason;
  private final Path record;

  PendingChange(State state, LockfileDelta delta, @Nullable String commitId, @Nullable String reason, Path record) {
    this.state = state;
    this.delta = delta;
    this.commitId = commitId;
    this.reason = reason;
    this.record = record;
  }

  /** {@return where the change stands} */
  public State state() {
    return state;
  }

  /** {@return the recorded change; empty when the record is {@link State#UNREADABLE}} */
  public LockfileDelta delta() {
    return delta;
  }

  /** {@return the commit id of the write whose answer was lost, when one was sent} */
  public Optional<String> commitId() {
    return Optional.ofNullable(commitId);
  }

  /** {@return why the change is in doubt or unreadable; empty while it is merely unpublished} */
  public Optional<String> reason() {
    return Optional.ofNullable(reason);
  }

  /** {@return the record's file in the state directory} */
  public Path record() {
    return record;
  }

  /** {@return whether every transaction on this checkout fails until the caller resolves the change} */
  public boolean blocksTransactions() {
    return state == State.OUTCOME_UNKNOWN || state == State.UNREADABLE;
  }

  /**
   * Returns one line for people: the state, the change and the reason.
   *
   * @return the description
   */
  public String describe() {
    return state.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": "
        + (state == State.UNREADABLE ? "unreadable record" : describe(delta))
        + (commitId == null ? "" : " (commit " + commitId + ")")
        + (reason == null ? "" : "; " + reason);
  }

  /** Returns a short description of a delta: {@code set @a/b 1.0, remove @c/d}. */
  static String describe(LockfileDelta delta) {
    StringBuilder out = new StringBuilder();
    delta.upserts().forEach((name, entry) -> out.append(out.length() > 0 ? ", " : "").append("set ").append(name)
        .append(" ").append(entry.version()));
    delta.removals().forEach(name -> out.append(out.length() > 0 ? ", " : "").append("remove ").append(name));
    return out.length() == 0 ? "no entry change" : out.toString();
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof PendingChange other && other.state == state && other.delta.equals(delta)
        && Objects.equals(other.commitId, commitId) && Objects.equals(other.reason, reason)
        && other.record.equals(record);
  }

  @Override
  public int hashCode() {
    return Objects.hash(state, delta, commitId, reason, record);
  }

  @Override
  public String toString() {
    return "PendingChange[" + describe() + "]";
  }
}
