package dev.tierlock;

import java.util.List;

/**
 * The outcome of one {@link LockfileTransaction} run. Immutable.
 *
 * @param status how it ended
 * @param delta the change to the shared lockfile it published or deferred (including a replayed
 *     pending change); empty for {@link TransactionStatus#NO_CHANGE}
 * @param attempts how many publish attempts were made (0 when nothing was published)
 * @param warnings what was logged as a warning (dropped stale pending changes, a deferred publish)
 */
public record TransactionResult(TransactionStatus status, LockfileDelta delta, int attempts, List<String> warnings) {

  /**
   * Validates and copies the values.
   *
   * @throws IllegalArgumentException if {@code attempts} is negative
   */
  public TransactionResult {
    if (attempts < 0) {
      throw new IllegalArgumentException("Cannot describe a transaction result with " + attempts + " attempts");
    }
    warnings = List.copyOf(warnings);
  }
}
