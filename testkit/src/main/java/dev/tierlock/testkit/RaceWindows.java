package dev.tierlock.testkit;

import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What {@link Faults#nonAtomicPreconditions} does to the conditional writes and deletes of one
 * {@link FaultyDatastore}: per key, a window in which calls conditioned on the state that the last
 * conditional change replaced still land when other threads send them. Every conditional call of the store is decided and sent
 * under this object's lock, one at a time, so the windows are exact whatever the threads do. Each
 * key draws from a generator of its own, seeded from the fault's generator when the key first
 * changes, so that which racer of a race lands first (the threads decide that) never shifts another
 * key's draws: a seeded run repeats its windows. Thread-safe.
 */
final class RaceWindows {

  /** The state a condition names: the key absent ({@code mustNotExist}), or one version ({@code mustMatch}). */
  private record State(@Nullable ObjectVersion version) {

    static @Nullable State of(WriteCondition condition) {
      if (condition instanceof WriteCondition.MustMatch match) {
        return new State(match.version());
      }
      return condition instanceof WriteCondition.MustNotExist ? new State(null) : null;
    }
  }

  /**
   * An open window: calls of other threads than {@code opener} conditioned on {@code replaced}
   * land, {@code remaining} more of them.
   */
  private static final class Window {
    final State replaced;
    final Thread opener;
    int remaining;

    Window(State replaced, Thread opener, int remaining) {
      this.replaced = replaced;
      this.opener = opener;
      this.remaining = remaining;
    }
  }

  private final Set<Faults.Precondition> kinds;
  private final int winners;
  private final double probability;
  private final java.util.random.RandomGenerator random;
  private final Map<ObjectKey, Window> windows = new HashMap<>();
  private final Map<ObjectKey, SplittableRandom> draws = new HashMap<>();

  RaceWindows(Set<Faults.Precondition> kinds, int winners, double probability, java.util.random.RandomGenerator random) {
    this.kinds = EnumSet.copyOf(kinds);
    this.winners = winners;
    this.probability = probability;
    this.random = random;
  }

  /** What a write or delete did: the store's answer, and whether the window let it through. */
  record Outcome<T>(T answer, boolean leaked) {}

  /**
   * Decides a write: through an open window, {@code unconditional} (it lands); else {@code
   * conditional}, and a conditional write that lands opens the key's window with the fault's
   * probability (or closes it).
   */
  synchronized Outcome<WriteResult> write(ObjectKey key, WriteCondition condition, Supplier<WriteResult> conditional,
      Supplier<WriteResult> unconditional) {
    if (leaks(key, condition, condition instanceof WriteCondition.MustMatch ? Faults.Precondition.COMPARE_AND_SWAP
        : Faults.Precondition.CREATE_ONLY)) {
      return new Outcome<>(unconditional.get(), true);
    }
    WriteResult answer = conditional.get();
    if (answer instanceof WriteResult.Written) {
      changed(key, condition);
    }
    return new Outcome<>(answer, false);
  }

  /**
   * Decides a delete: through an open window, {@code unconditional}, answered {@link
   * DeleteResult#DELETED} whatever it found (the racer's check saw the object at its version);
   * else {@code conditional}, and one that deletes opens or closes the key's window as a write does.
   */
  synchronized Outcome<DeleteResult> delete(ObjectKey key, WriteCondition condition,
      Supplier<DeleteResult> conditional, Supplier<DeleteResult> unconditional) {
    if (leaks(key, condition, Faults.Precondition.CONDITIONAL_DELETE)) {
      unconditional.get();
      return new Outcome<>(DeleteResult.DELETED, true);
    }
    DeleteResult answer = conditional.get();
    if (answer == DeleteResult.DELETED) {
      changed(key, condition);
    }
    return new Outcome<>(answer, false);
  }

  /** Closes the window of {@code key}: a read, stat or download of it saw its current state. */
  synchronized void read(ObjectKey key) {
    windows.remove(key);
  }

  private boolean leaks(ObjectKey key, WriteCondition condition, Faults.Precondition kind) {
    State state = State.of(condition);
    Window window = windows.get(key);
    if (window != null && window.opener == Thread.currentThread()) {
      windows.remove(key); // the opener's next call was sent after its change was answered: it races nothing
      return false;
    }
    if (state == null || window == null || !kinds.contains(kind) || !window.replaced.equals(state)
        || window.remaining == 0) {
      return false;
    }
    window.remaining--;
    return true;
  }

  private void changed(ObjectKey key, WriteCondition condition) {
    State replaced = State.of(condition);
    if (replaced != null && winners > 1
        && draws.computeIfAbsent(key, k -> new SplittableRandom(random.nextLong())).nextDouble() < probability) {
      windows.put(key, new Window(replaced, Thread.currentThread(), winners - 1));
    } else {
      windows.remove(key);
    }
  }
}
