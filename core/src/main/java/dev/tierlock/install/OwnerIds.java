package dev.tierlock.install;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The owner ids of the installs in flight in this process: a swap registers its owner when it stages
 * and releases it when it ends (committed, rolled back, or failed), and recovery leaves alone every
 * journal whose owner is registered. No pid heuristics: an id not registered here is orphaned.
 * Counted, so two swaps of one owner each hold it. Thread-safe.
 */
final class OwnerIds {

  private static final OwnerIds PROCESS = new OwnerIds();

  private final Map<String, Integer> active = new ConcurrentHashMap<>();

  /** Returns the set of this process, shared by every installer in it. */
  static OwnerIds process() {
    return PROCESS;
  }

  /** Registers one swap of {@code ownerId}. */
  void register(String ownerId) {
    active.merge(ownerId, 1, Integer::sum);
  }

  /** Releases one swap of {@code ownerId}; the id stays active while another swap of it holds it. */
  void release(String ownerId) {
    active.computeIfPresent(ownerId, (id, count) -> count == 1 ? null : count - 1);
  }

  /** Returns whether a swap of {@code ownerId} is in flight in this process. */
  boolean isActive(String ownerId) {
    return active.containsKey(ownerId);
  }
}
