package dev.tierlock.benchmarks;

import dev.tierlock.benchmarks.CommitModes.GroupCommit;
import dev.tierlock.benchmarks.CommitModes.Mode;

/** Who makes the end-to-end put: Tierlock in a mode, or the baseline protocol. */
public enum PutProtocol {
  /** Tierlock, locked mode. */
  LOCKED,
  /** Tierlock, optimistic mode. */
  OPTIMISTIC,
  /** The original tool's protocol ({@link UploadProtocol#baseline}). */
  BASELINE;

  /** Returns whether this build of core can make this put. */
  boolean available() {
    return this == BASELINE || CommitModes.supports(mode(), GroupCommit.DEFAULT);
  }

  Mode mode() {
    return this == OPTIMISTIC ? Mode.OPTIMISTIC : Mode.LOCKED;
  }

  /** Returns what the report calls it. */
  String label() {
    return switch (this) {
      case LOCKED -> "Tierlock, locked";
      case OPTIMISTIC -> "Tierlock, optimistic";
      case BASELINE -> "baseline protocol";
    };
  }
}
