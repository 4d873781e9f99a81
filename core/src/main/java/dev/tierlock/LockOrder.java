package dev.tierlock;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Checks, per thread, that locks are taken in {@link LockLevel} order. Every lock of Tierlock calls
 * {@link #enter} before acquiring and closes the returned ticket after releasing. Re-entry at the
 * level already held innermost is allowed (a nested section joins the outer one; the lock itself
 * decides whether it re-enters).
 */
final class LockOrder {

  private static final ThreadLocal<Deque<LockLevel>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

  private LockOrder() {}

  /** A level entered by the current thread; close it once the lock is released. */
  interface Ticket extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Records that the current thread is about to take {@code level}.
   *
   * @throws LockOrderException if it already holds an inner level
   */
  static Ticket enter(LockLevel level, String what) {
    Deque<LockLevel> held = HELD.get();
    LockLevel innermost = held.peek();
    if (innermost != null && innermost.compareTo(level) > 0) {
      throw new LockOrderException(level, innermost, what);
    }
    held.push(level);
    Thread owner = Thread.currentThread();
    return new Ticket() {
      private boolean closed;

      @Override
      public void close() {
        if (closed || Thread.currentThread() != owner) {
          return;
        }
        closed = true;
        Deque<LockLevel> stack = HELD.get();
        stack.removeFirstOccurrence(level);
        if (stack.isEmpty()) {
          HELD.remove();
        }
      }
    };
  }

  /** Returns the innermost level the current thread holds, or {@code null} when it holds none. */
  static LockLevel innermost() {
    return HELD.get().peek();
  }
}
