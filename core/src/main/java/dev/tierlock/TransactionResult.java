package dev.tierlock;

import java.util.List;

/**
 * How a {@link LockfileTransaction} ended, when it did not throw. Immutable.
 *
 * @param status what happened
 * @param delta the change published ({@link TransactionStatus#PUBLISHED}), kept pending ({@link
 *     TransactionStatus#DEFERRED}) or none
 * @param attempts the lockfile writes attempted
 * @param warnings what was dropped, kept or left behind, one sentence each (also logged)
 * @param lockfile the shared lockfile as the transaction left it: as published, or as fetched
 */
public record TransactionResult(TransactionStatus status, LockfileDelta delta, int attempts, List<String> warnings,
    Lockfile lockfile) {

  /**
   * Validates and copies the values.
   *
   * @param status what happened
   * @param delta the change published ({@link TransactionStatus#PUBLISHED}), kept pending ({@link
   *     TransactionStatus#DEFERRED}) or none
   * @param attempts the lockfile writes attempted
   * @param warnings what was dropped, kept or left behind, one sentence each (also logged)
   * @param lockfile the shared lockfile as the transaction left it: as published, or as fetched
   * @throws IllegalArgumentException if {@code attempts} is negative
   */
  public TransactionResult {
    if (attempts < 0) {
      throw new IllegalArgumentException("Cannot describe a transaction result with " + attempts + " attempts");
    }
    warnings = List.copyOf(warnings);
  }

  /** Returns {@code warnings} as a tail for an exception's message: empty, or {@code " (also: w1; w2)"}. */
  static String also(List<String> warnings) {
    return warnings.isEmpty() ? "" : " (also: " + String.join("; ", warnings.stream()
        .map(w -> w.endsWith(".") ? w.substring(0, w.length() - 1) : w).toList()) + ")";
  }
}
