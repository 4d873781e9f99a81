package dev.tierlock;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The queue of runs waiting on one checkout in this JVM, merged into batches. The caller at the
 * head of the queue when no batch is running becomes the leader: it takes every run queued at that
 * moment, in arrival order, and runs them as one batch (one lock, one fetch, one publish). Each
 * run's change still runs on its own caller's thread, in queue order: the leader hands it its turn
 * and waits for it. Runs that arrive meanwhile wait for the next batch. A caller waits until its
 * deadline to be taken into a batch ({@link LockTimeoutException} after it, leaving the queue);
 * once taken, it waits for its outcome, which the batch always sets. Thread-safe.
 */
final class GroupCommit {

  /** The most runs one batch takes. */
  static final int MAX_BATCH = 256;

  /** The longest a waiting caller sleeps before it reads its clock again. */
  private static final Duration MAX_PAUSE = Duration.ofMillis(200);

  /** Runs one batch; must end every run in it (the queue ends whatever it left with its failure). */
  interface Batches {
    void run(List<Request> batch, Turns turns);
  }

  /** Gives a run of the batch its turn to run its change, on its own thread. */
  interface Turns {
    void apply(Request request, Lockfile from);

    /**
     * Takes into the batch the runs that queued since it started (up to {@link #MAX_BATCH} in
     * all), in arrival order: a leader calls it once it holds the locks and has fetched, so that
     * callers arriving while it waited for them join this batch.
     *
     * @return the runs taken now, to run after those the batch already has
     */
    default List<Request> more() {
      return List.of();
    }
  }

  private final ReentrantLock guard = new ReentrantLock();
  private final Condition changed = guard.newCondition();
  private final ArrayDeque<Request> waiting = new ArrayDeque<>();
  private final Clock clock;
  private final String description;
  private final PulledExtensionsLock pulledExtensions;
  private final Runnable onQueued;
  private boolean leading;
  /** The run whose turn it is to apply its change, and what it applies it to. */
  private @Nullable Request turn;
  private @Nullable Lockfile turnFrom;

  /**
   * Creates an empty queue.
   *
   * @param clock measures the callers' deadlines
   * @param description the checkout, for messages
   * @param pulledExtensions the checkout's pulled-extensions lock, which changes may take
   */
  GroupCommit(Clock clock, String description, PulledExtensionsLock pulledExtensions) {
    this(clock, description, pulledExtensions, () -> { });
  }

  private GroupCommit(Clock clock, String description, PulledExtensionsLock pulledExtensions, Runnable onQueued) {
    this.clock = clock;
    this.description = description;
    this.pulledExtensions = pulledExtensions;
    this.onQueued = onQueued;
  }

  /**
   * Returns an empty queue like this one that runs {@code action} on a caller's thread, under the
   * queue's lock, once it has queued behind another and before it waits ({@link Environment#queueing()}).
   */
  GroupCommit onQueued(Runnable action) {
    return new GroupCommit(clock, description, pulledExtensions, action);
  }

  /**
   * Runs {@code request} in a batch: leads one, or waits to be taken into one.
   *
   * @return its result
   * @throws LockTimeoutException if no batch took it before its deadline
   * @throws InterruptedOperationException if interrupted before a batch took it
   * @throws RuntimeException how the run failed for this caller
   */
  TransactionResult submit(Request request, Batches batches) {
    guard.lock();
    try {
      waiting.addLast(request);
      boolean interrupted = false;
      Instant queuedAt = clock.instant();
      boolean told = false;
      while (true) {
        if (Thread.interrupted()) {
          if (waiting.remove(request)) {
            changed.signalAll();
            Thread.currentThread().interrupt();
            throw new InterruptedOperationException("Cannot wait for the runs before this one on " + description,
                new InterruptedException("interrupted while queued"));
          }
          interrupted = true;  // taken into a batch: the interrupt is kept for the end (or a failed batch)
        }
        if (request.isDone()) {
          if (interrupted) {
            Thread.currentThread().interrupt();
          }
          return request.outcome();
        }
        if (turn == request) {
          applyTurn(request);
          continue;
        }
        if (interrupted && waiting.contains(request)) {
          // interrupted while its batch ran, which failed before its change did: it stops here
          waiting.remove(request);
          changed.signalAll();
          Thread.currentThread().interrupt();
          throw new InterruptedOperationException("Cannot run a transaction on " + description + " (the batch it"
              + " joined failed before its change ran)", new InterruptedException("interrupted in a batch"));
        }
        if (!leading && waiting.peekFirst() == request) {
          lead(batches);
          continue;
        }
        boolean queued = waiting.contains(request);
        if (queued && !told) {
          told = true;
          onQueued.run();
        }
        Instant now = clock.instant();
        if (queued && !now.isBefore(request.deadline)) {
          waiting.remove(request);
          changed.signalAll();
          throw LockTimeoutException.ofLockFile(description, "the batch of runs before this one in this process",
              Duration.between(queuedAt, now));
        }
        Duration pause = queued ? Duration.between(now, request.deadline) : MAX_PAUSE;
        if (pause.compareTo(MAX_PAUSE) > 0) {
          pause = MAX_PAUSE;
        }
        try {
          changed.await(pause.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          if (waiting.remove(request)) {
            changed.signalAll();
            throw new InterruptedOperationException("Cannot wait for the runs before this one on " + description, e);
          }
          // taken into a batch already: its outcome comes (or, when its batch failed before its
          // change ran, its turn to lead); the interrupt is given back to the caller at the end
          interrupted = true;
        }
      }
    } finally {
      guard.unlock();
    }
  }

  private void applyTurn(Request request) {
    Lockfile from = turnFrom;
    guard.unlock();
    try {
      request.apply(from == null ? Lockfile.EMPTY : from, pulledExtensions);
    } finally {
      guard.lock();
      turn = null;
      turnFrom = null;
      changed.signalAll();
    }
  }

  private void lead(Batches batches) {
    List<Request> batch = new ArrayList<>();
    while (!waiting.isEmpty() && batch.size() < MAX_BATCH) {
      batch.add(waiting.pollFirst());
    }
    leading = true;
    // the leader's finally reads the batch under the guard; more() adds to it under the guard
    Thread leader = Thread.currentThread();
    guard.unlock();
    Throwable failure = null;
    Turns turns = new Turns() {
      @Override
      public void apply(Request request, Lockfile from) {
        hand(request, from, leader);
      }

      @Override
      public List<Request> more() {
        guard.lock();
        try {
          List<Request> taken = new ArrayList<>();
          while (!waiting.isEmpty() && batch.size() < MAX_BATCH) {
            Request next = waiting.pollFirst();
            batch.add(next);
            taken.add(next);
          }
          return taken;
        } finally {
          guard.unlock();
        }
      }
    };
    try {
      batches.run(batch, turns);
    } catch (RuntimeException | Error e) {
      failure = e;
    } finally {
      guard.lock();
      leading = false;
      List<Request> again = new ArrayList<>();
      for (Request r : batch) {
        if (r.isDone()) {
          continue;
        }
        if (failure != null && r.thread != leader && !r.ran()) {
          // the batch failed before this caller's change ran (the leader's lock wait timed out, or
          // it was interrupted): it goes back to the head of the queue, for a leader of its own
          again.add(r);
        } else {
          r.fail(failure != null ? failure
              : new IllegalStateException("Cannot end a run of " + description + ": its batch left it without an outcome"));
        }
      }
      for (int i = again.size() - 1; i >= 0; i--) {
        waiting.addFirst(again.get(i));
      }
      changed.signalAll();
    }
  }

  /** Runs {@code request}'s change against {@code from}: here when it is the leader's, else on its caller's thread. */
  private void hand(Request request, Lockfile from, Thread leader) {
    if (request.thread == leader) {
      request.apply(from, pulledExtensions);
      return;
    }
    guard.lock();
    try {
      turn = request;
      turnFrom = from;
      changed.signalAll();
      while (turn == request) {
        changed.awaitUninterruptibly();
      }
    } finally {
      guard.unlock();
    }
  }

  /**
   * One caller's run of {@link LockfileTransaction#run}: its change, which always runs on the
   * caller's own thread (a group commit's leader hands it its turn), what the change did, and how the
   * run ended for this caller. Confined to the batch that holds it: the leader writes the outcome, the
   * caller reads it once {@link #isDone()} (both under the group's monitor, or on one thread).
   */
  static final class Request {

    final Consumer<TransactionContext> change;
    final Thread thread = Thread.currentThread();
    final Instant deadline;

    /** The lockfile the change started from and its delta, once it ran without throwing. */
    private @Nullable Lockfile start;
    private LockfileDelta own = LockfileDelta.EMPTY;
    private LockfileDelta wanted = LockfileDelta.EMPTY;
    private Map<TierPath, Runnable> required = Map.of();
    /** What the change threw: nothing of it is published or kept. */
    private @Nullable Throwable thrown;

    private @Nullable TransactionResult result;
    private @Nullable Throwable failure;
    private boolean done;

    Request(Consumer<TransactionContext> change, Instant deadline) {
      this.change = change;
      this.deadline = deadline;
    }

    /**
     * Runs the change on this thread against an editor over {@code from}; records its delta and the
     * archives it stored, or what it threw (then nothing of it counts).
     */
    void apply(Lockfile from, PulledExtensionsLock pulledExtensions) {
      if (Thread.currentThread() != thread) {
        throw new IllegalStateException("Cannot run a change on another thread than its caller's");
      }
      ChangeEditor editor = new ChangeEditor(from, pulledExtensions);
      try {
        change.accept(editor);
        start = from;
        own = editor.delta();
        wanted = editor.wanted();
        required = editor.required();
      } catch (RuntimeException | Error e) {
        thrown = e;
      } finally {
        editor.close();
      }
    }

    /** Returns whether the change ran (whether or not it threw). */
    boolean ran() {
      return start != null || thrown != null;
    }

    /** Returns whether the change ran and did not throw. */
    boolean applied() {
      return start != null && thrown == null;
    }

    /** Returns what the change changed, against the lockfile it started from (empty unless applied). */
    LockfileDelta own() {
      return own;
    }

    /** Returns what the change wants of every name it touched, changed or not (empty unless applied). */
    LockfileDelta wanted() {
      return wanted;
    }

    /** Drops what the change did: it fails, and nothing of it is published. */
    void discard() {
      own = LockfileDelta.EMPTY;
      wanted = LockfileDelta.EMPTY;
      required = Map.of();
    }

    /** Returns the tier paths the change stored and relies on, each with how to store it again. */
    Map<TierPath, Runnable> required() {
      return required;
    }

    /** Returns the lockfile the change started from. */
    Lockfile start() {
      Lockfile from = start;
      if (from == null) {
        throw new IllegalStateException("Cannot read the start of a change that has not run");
      }
      return from;
    }

    /** Ends the run for this caller with {@code value}; the first ending counts. */
    void succeed(TransactionResult value) {
      if (!done) {
        result = value;
        done = true;
      }
    }

    /** Ends the run for this caller with {@code value}; the first ending counts. */
    void fail(Throwable value) {
      if (!done) {
        failure = value;
        done = true;
      }
    }

    /** Ends the run with what the change threw, if it threw; returns whether it did. */
    boolean failIfThrown() {
      Throwable t = thrown;
      if (t != null) {
        fail(t);
        return true;
      }
      return false;
    }

    boolean isDone() {
      return done;
    }

    /**
     * Returns the result, or throws how the run failed for this caller.
     *
     * @throws IllegalStateException if the run has not ended
     */
    TransactionResult outcome() {
      if (!done) {
        throw new IllegalStateException("Cannot read the outcome of a run that has not ended");
      }
      Throwable f = failure;
      if (f instanceof RuntimeException e) {
        throw e;
      }
      if (f instanceof Error e) {
        throw e;
      }
      if (f != null) {
        throw new IllegalStateException("Cannot end a run with " + f, f);
      }
      TransactionResult r = result;
      if (r == null) {
        throw new IllegalStateException("Cannot read the outcome of a run that ended without one");
      }
      return r;
    }
  }
}
