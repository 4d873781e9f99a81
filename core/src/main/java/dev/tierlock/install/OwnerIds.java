package dev.tierlock.install;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The owners of the installs in flight: a swap registers its owner when it stages and releases it
 * when it ends (committed, rolled back, or failed), and recovery leaves alone every journal whose
 * owner is active. An installer's owners are backed by {@link OwnerLocks}: registering takes an OS
 * lock the owner's process holds until the install ends, so an install between its swap and its
 * commit (its lockfile publish in between) is active for every process on the checkout, and
 * orphaned the moment its process dies, however it dies. No pid is read. {@link #process()} is the
 * same in memory only, for one process. Counted, so two swaps of one owner each hold it.
 * Thread-safe.
 */
final class OwnerIds {

  private static final OwnerIds PROCESS = new OwnerIds(null);

  private final Map<String, Integer> active = new ConcurrentHashMap<>();
  private final Map<String, OwnerLocks.Held> held = new ConcurrentHashMap<>();
  private final @Nullable OwnerLocks locks;

  /** Creates an empty in-memory set of its own (tests). */
  OwnerIds() {
    this(null);
  }

  private OwnerIds(@Nullable OwnerLocks locks) {
    this.locks = locks;
  }

  /** Returns an in-memory set shared by this process (it sees no other process's owners). */
  static OwnerIds process() {
    return PROCESS;
  }

  /** Returns owners backed by {@code locks}: visible to, and judged alive by, every process of the checkout. */
  static OwnerIds locked(OwnerLocks locks) {
    return new OwnerIds(locks);
  }

  /** Registers one swap of {@code ownerId}, taking its owner lock on the first. */
  void register(String ownerId) {
    synchronized (this) {
      if (locks != null && !held.containsKey(ownerId)) {
        held.put(ownerId, locks.hold(ownerId, "owner " + ownerId));
      }
      active.merge(ownerId, 1, Integer::sum);
    }
  }

  /** Releases one swap of {@code ownerId}; the last release frees its owner lock. */
  void release(String ownerId) {
    OwnerLocks.Held lock = null;
    synchronized (this) {
      Integer left = active.computeIfPresent(ownerId, (id, count) -> count == 1 ? null : count - 1);
      if (left == null) {
        lock = held.remove(ownerId);
      }
    }
    if (lock != null) {
      lock.close();
    }
  }

  /** Returns whether {@code ownerId} is in flight: here, or in any live process holding its owner lock. */
  boolean isActive(String ownerId) {
    if (active.containsKey(ownerId)) {
      return true;
    }
    return locks != null && locks.isAlive(ownerId);
  }
}
