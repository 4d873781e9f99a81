package dev.tierlock.benchmarks;

import dev.tierlock.CommitMode;

/** One way for N writers to commit changes to the shared lockfile, as measured side by side. */
enum Protocol {
  /** Each writer its own checkout directory and {@code Tierlock}, locked mode. */
  LOCKED("locked, separate checkouts", Shape.SEPARATE, CommitMode.LOCKED, GroupCommit.ON),
  /** Each writer its own checkout directory and {@code Tierlock}, optimistic mode. */
  OPTIMISTIC("optimistic, separate checkouts", Shape.SEPARATE, CommitMode.OPTIMISTIC, GroupCommit.ON),
  /** All writers are threads on one checkout (locked mode), group commit on (core's default). */
  SHARED_GROUP("one checkout, group commit", Shape.SHARED, CommitMode.LOCKED, GroupCommit.ON),
  /** All writers are threads on one checkout in optimistic mode, group commit on (measured on S3 and GCS). */
  SHARED_GROUP_OPTIMISTIC("one checkout, optimistic, group commit", Shape.SHARED, CommitMode.OPTIMISTIC, GroupCommit.ON),
  /** All writers are threads on one checkout (locked mode), group commit off. */
  SHARED_SERIAL("one checkout, no group commit", Shape.SHARED, CommitMode.LOCKED, GroupCommit.OFF),
  /** The original tool's: create-only lock object, GET, unconditional PUT, delete the lock. */
  BASELINE("baseline protocol", Shape.UPLOAD, CommitMode.LOCKED, GroupCommit.OFF),
  /** GET and unconditional PUT, no lock: loses changes. */
  NO_LOCK("no-lock protocol", Shape.UPLOAD, CommitMode.OPTIMISTIC, GroupCommit.OFF);

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

  private final String label;
  private final Shape shape;
  private final CommitMode mode;
  private final GroupCommit group;

  Protocol(String label, Shape shape, CommitMode mode, GroupCommit group) {
    this.label = label;
    this.shape = shape;
    this.mode = mode;
    this.group = group;
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
}
