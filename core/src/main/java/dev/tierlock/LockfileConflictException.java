package dev.tierlock;

import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * While this transaction was publishing, another checkout published a different change to an entry
 * this transaction changed too. Their change is kept (it is never silently reverted); this
 * transaction's change to that entry is dropped and nothing of it stays pending. Changes to other
 * entries were still published (under {@link PublishFailurePolicy#DEFER}, or kept pending when the
 * store failed, which the warnings say; without it, that failure is thrown instead, naming the
 * conflict). Look at the entry and redo the change if it is still wanted. Code
 * {@code lockfile_conflict}.
 */
public final class LockfileConflictException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "lockfile_conflict";

  /** One conflicting entry: its name and both values. Immutable. */
  public static final class Conflict {
    private final ExtensionName name;
    private final @Nullable LockfileEntry ours;
    private final @Nullable LockfileEntry theirs;

    Conflict(ExtensionName name, @Nullable LockfileEntry ours, @Nullable LockfileEntry theirs) {
      this.name = name;
      this.ours = ours;
      this.theirs = theirs;
    }

    /** {@return the entry's name} */
    public ExtensionName name() {
      return name;
    }

    /** {@return what this transaction set the entry to, or empty when it removed it} */
    public Optional<LockfileEntry> ours() {
      return Optional.ofNullable(ours);
    }

    /** {@return what the other checkout published, or empty when it removed the entry} */
    public Optional<LockfileEntry> theirs() {
      return Optional.ofNullable(theirs);
    }

    String describe() {
      return name + " (this transaction: " + show(ours) + ", published by another checkout: " + show(theirs) + ")";
    }

    private static String show(@Nullable LockfileEntry entry) {
      return entry == null ? "removed" : entry.canonicalJson();
    }

    @Override
    public String toString() {
      return describe();
    }
  }

  private final transient List<Conflict> conflicts;
  /** What else the run reports, one sentence each. */
  private final List<String> warnings;

  /**
   * Creates the exception.
   *
   * @param target where the change was published
   * @param conflicts the conflicting entries, at least one
   */
  public LockfileConflictException(String target, List<Conflict> conflicts) {
    this(target, conflicts, List.of());
  }

  /**
   * Creates the exception, with what else the transaction dropped or left behind.
   *
   * @param target where the change was published
   * @param conflicts the entries another checkout changed at the same time
   * @param warnings what else the run reports, one sentence each (an earlier pending change it
   *     dropped because another checkout changed that entry since, say)
   */
  public LockfileConflictException(String target, List<Conflict> conflicts, List<String> warnings) {
    super(CODE, "Cannot publish lockfile change to " + target + ": another checkout changed "
        + String.join("; ", conflicts.stream().map(Conflict::describe).toList())
        + " at the same time; their change is kept and this one is dropped for "
        + (conflicts.size() == 1 ? "that entry" : "those entries") + TransactionResult.also(warnings));
    this.conflicts = List.copyOf(conflicts);
    this.warnings = List.copyOf(warnings);
  }

  /** {@return what else the run reports, one sentence each; empty when nothing} */
  public List<String> warnings() {
    return warnings;
  }

  /** {@return the conflicting entries} */
  public List<Conflict> conflicts() {
    return conflicts;
  }
}
