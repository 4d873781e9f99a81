package dev.tierlock.benchmarks;

import dev.tierlock.CommitMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One way for N writers to commit changes to the shared lockfile, as measured side by side. The
 * separate-checkout protocols are one per value of {@link CommitMode}, in its order ({@link
 * #MODES}): a mode the engine adds is measured everywhere without a change here.
 */
final class Protocol {

  /** How the writers of a protocol are laid out. */
  enum Shape {
    /** A checkout per writer. */
    SEPARATE,
    /** One checkout, a thread per writer. */
    SHARED,
    /** One of this module's upload protocols per writer, each with its own directory. */
    UPLOAD
  }

  /** Whether runs queued on one checkout are merged into one publish. */
  enum GroupCommit {
    /** Merged: core's default. */
    ON,
    /** Each run alone ({@code Tierlock.Builder#withoutGroupCommit}). */
    OFF
  }

  /** Every commit mode of this build, in the engine's order: the modes each part of the report measures. */
  static final List<CommitMode> MODES = List.of(CommitMode.values());

  private static final Map<CommitMode, Protocol> SEPARATE = new EnumMap<>(CommitMode.class);

  static {
    for (CommitMode mode : MODES) {
      SEPARATE.put(mode, new Protocol(mode.name(), modeLabel(mode) + ", separate checkouts", Shape.SEPARATE, mode,
          GroupCommit.ON));
    }
  }

  /** Each writer its own checkout directory and {@code Tierlock}, locked mode. */
  static final Protocol LOCKED = separate(CommitMode.LOCKED);
  /** Each writer its own checkout directory and {@code Tierlock}, optimistic mode. */
  static final Protocol OPTIMISTIC = separate(CommitMode.OPTIMISTIC);
  /** All writers are threads on one checkout (locked mode), group commit on (core's default). */
  static final Protocol SHARED_GROUP = new Protocol("SHARED_GROUP", "one checkout, group commit", Shape.SHARED,
      CommitMode.LOCKED, GroupCommit.ON);
  /** All writers are threads on one checkout in optimistic mode, group commit on (measured on S3 and GCS). */
  static final Protocol SHARED_GROUP_OPTIMISTIC = new Protocol("SHARED_GROUP_OPTIMISTIC",
      "one checkout, optimistic, group commit", Shape.SHARED, CommitMode.OPTIMISTIC, GroupCommit.ON);
  /** All writers are threads on one checkout (locked mode), group commit off. */
  static final Protocol SHARED_SERIAL = new Protocol("SHARED_SERIAL", "one checkout, no group commit", Shape.SHARED,
      CommitMode.LOCKED, GroupCommit.OFF);
  /** The original tool's: create-only lock object, GET, unconditional PUT, delete the lock. */
  static final Protocol BASELINE = new Protocol("BASELINE", "baseline protocol", Shape.UPLOAD, CommitMode.LOCKED,
      GroupCommit.OFF);
  /** GET and unconditional PUT, no lock: loses changes. */
  static final Protocol NO_LOCK = new Protocol("NO_LOCK", "no-lock protocol", Shape.UPLOAD, CommitMode.OPTIMISTIC,
      GroupCommit.OFF);

  private final String name;
  private final String label;
  private final Shape shape;
  private final CommitMode mode;
  private final GroupCommit group;

  private Protocol(String name, String label, Shape shape, CommitMode mode, GroupCommit group) {
    this.name = name;
    this.label = label;
    this.shape = shape;
    this.mode = mode;
    this.group = group;
  }

  /** Returns the separate-checkout protocol of {@code mode}. */
  static Protocol separate(CommitMode mode) {
    return SEPARATE.get(mode);
  }

  /** Returns the separate-checkout protocol of every mode, in {@link #MODES} order. */
  static List<Protocol> separateModes() {
    return MODES.stream().map(Protocol::separate).toList();
  }

  /** Returns every protocol: each mode's separate checkouts, then the shared checkouts, then the upload protocols. */
  static List<Protocol> all() {
    List<Protocol> all = new ArrayList<>(separateModes());
    all.addAll(List.of(SHARED_GROUP, SHARED_GROUP_OPTIMISTIC, SHARED_SERIAL, BASELINE, NO_LOCK));
    return List.copyOf(all);
  }

  /** Returns every mode's separate checkouts followed by {@code others}. */
  static List<Protocol> modesThen(Protocol... others) {
    List<Protocol> list = new ArrayList<>(separateModes());
    list.addAll(Arrays.asList(others));
    return List.copyOf(list);
  }

  /** Returns what the report calls {@code mode}: its name in lower case. */
  static String modeLabel(CommitMode mode) {
    return mode.name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Returns a stable name for directories and progress lines. */
  String name() {
    return name;
  }

  /** Returns what the report calls it. */
  String label() {
    return label;
  }

  Shape shape() {
    return shape;
  }

  CommitMode mode() {
    return mode;
  }

  GroupCommit group() {
    return group;
  }

  @Override
  public String toString() {
    return name;
  }
}
