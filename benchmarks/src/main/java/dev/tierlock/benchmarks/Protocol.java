package dev.tierlock.benchmarks;

import dev.tierlock.benchmarks.CommitModes.GroupCommit;
import dev.tierlock.benchmarks.CommitModes.Mode;

/** One way for N writers to commit changes to the shared lockfile, as measured side by side. */
enum Protocol {
  /** Each writer its own checkout directory and {@code Tierlock}, locked mode. */
  LOCKED("locked, separate checkouts", Shape.SEPARATE, Mode.LOCKED, GroupCommit.DEFAULT),
  /** Each writer its own checkout directory and {@code Tierlock}, optimistic mode. */
  OPTIMISTIC("optimistic, separate checkouts", Shape.SEPARATE, Mode.OPTIMISTIC, GroupCommit.DEFAULT),
  /** All writers are threads on one checkout, group commit on. */
  SHARED_GROUP("one checkout, group commit", Shape.SHARED, Mode.LOCKED, GroupCommit.ON),
  /** All writers are threads on one checkout, group commit off. */
  SHARED_SERIAL("one checkout, no group commit", Shape.SHARED, Mode.LOCKED, GroupCommit.OFF),
  /** The original tool's: create-only lock object, GET, unconditional PUT, delete the lock. */
  BASELINE("baseline protocol", Shape.UPLOAD, Mode.LOCKED, GroupCommit.DEFAULT),
  /** GET and unconditional PUT, no lock: loses changes. */
  NO_LOCK("no-lock protocol", Shape.UPLOAD, Mode.OPTIMISTIC, GroupCommit.DEFAULT);

  /** How the writers of a protocol are laid out. */
  enum Shape {
    /** A checkout per writer. */
    SEPARATE,
    /** One checkout, a thread per writer. */
    SHARED,
    /** One of this module's upload protocols per writer, each with its own directory. */
    UPLOAD
  }

  private final String label;
  private final Shape shape;
  private final Mode mode;
  private final GroupCommit group;

  Protocol(String label, Shape shape, Mode mode, GroupCommit group) {
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

  Mode mode() {
    return mode;
  }

  GroupCommit group() {
    return group;
  }

  /** Returns whether this build can run it: the upload protocols always, Tierlock's as {@link CommitModes} says. */
  boolean available() {
    return shape == Shape.UPLOAD || CommitModes.supports(mode, group);
  }
}
