package dev.tierlock.benchmarks;

import dev.tierlock.CommitMode;

/** Who makes the end-to-end put: Tierlock in a mode, or the baseline protocol. */
public enum PutProtocol {
  /** Tierlock, locked mode. */
  LOCKED,
  /** Tierlock, optimistic mode. */
  OPTIMISTIC,
  /** The original tool's protocol ({@link UploadProtocol#baseline}). */
  BASELINE;

  CommitMode mode() {
    return this == OPTIMISTIC ? CommitMode.OPTIMISTIC : CommitMode.LOCKED;
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
