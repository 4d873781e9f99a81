package dev.tierlock;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The lock-order rule, written once: per thread, locks are taken in {@link LockLevel} order (the
 * global lease and the checkout's transaction lock, then the pulled-extensions lock). Every lock of
 * Tierlock calls {@link #enter} before acquiring and closes the returned ticket after releasing.
 * Re-entry at the level already held innermost is allowed (a nested section joins the outer one;
 * the lock itself decides whether it re-enters); an outer level while an inner one is held is a
 * programming error, refused with an {@link IllegalStateException} before anything is taken.
 *
 * <p>A ticket belongs to the thread that entered it, but may be closed on any thread: a lock taken
 * on a pool thread and released on another frees the level of the thread that took it, so that the
 * pool thread is not left holding a level forever. Each thread's levels are kept in a stack that its
 * tickets reference directly and that every access locks (uncontended, except when a ticket is
 * closed on a foreign thread). Thread-safe.
 */
final class LockOrder {

  private static final ThreadLocal<ArrayDeque<Entry>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

  /** The order for messages: {@code GLOBAL and CHECKOUT, then PULLED_EXTENSIONS}. */
  private static final String ORDER = Arrays.stream(LockLevel.values())
      .collect(Collectors.groupingBy(l -> l.rank, TreeMap::new,
          Collectors.mapping(LockLevel::name, Collectors.joining(" and "))))
      .values().stream().collect(Collectors.joining(", then "));

  private LockOrder() {}

  /** A level entered by a thread; close it, on any thread, once the lock is released. */
  interface Ticket extends AutoCloseable {
    /** Frees the level in the stack of the thread that entered it. Idempotent. */
    @Override
    void close();
  }

  /**
   * Records that the current thread is about to take {@code level}.
   *
   * @param what the lock about to be taken, for the message
   * @throws IllegalStateException if it already holds an inner level
   */
  static Ticket enter(LockLevel level, String what) {
    ArrayDeque<Entry> stack = HELD.get();
    synchronized (stack) {
      Entry innermost = stack.peek();
      if (innermost != null && innermost.level.rank > level.rank) {
        throw outOfOrder(level, innermost.level, what);
      }
      Entry entry = new Entry(level, stack);
      stack.push(entry);
      return entry;
    }
  }

  private static IllegalStateException outOfOrder(LockLevel wanted, LockLevel held, String what) {
    return new IllegalStateException("Cannot acquire " + what + ": the " + wanted + " lock is taken before the " + held
        + " lock, and this thread already holds the " + held + " lock (lock order is " + ORDER + ")");
  }

  /** Returns the innermost level the current thread holds, or {@code null} when it holds none. */
  static @Nullable LockLevel innermost() {
    ArrayDeque<Entry> stack = HELD.get();
    synchronized (stack) {
      Entry innermost = stack.peek();
      if (innermost == null) {
        HELD.remove();
        return null;
      }
      return innermost.level;
    }
  }

  /** One entered level, in the stack of the thread that entered it. */
  private static final class Entry implements Ticket {
    private final LockLevel level;
    private final ArrayDeque<Entry> stack;
    private final Thread owner = Thread.currentThread();
    private boolean closed;

    Entry(LockLevel level, ArrayDeque<Entry> stack) {
      this.level = level;
      this.stack = stack;
    }

    @Override
    public void close() {
      synchronized (stack) {
        if (closed) {
          return;
        }
        closed = true;
        stack.removeFirstOccurrence(this);
        if (stack.isEmpty() && Thread.currentThread() == owner) {
          // drop the empty stack so that pool threads keep nothing; a foreign closer leaves it (empty) in place
          HELD.remove();
        }
      }
    }
  }
}
