package dev.tierlock;

import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One caller's run of {@link LockfileTransaction#run}: its change, which always runs on the
 * caller's own thread (a group commit's leader hands it its turn), what the change did, and how the
 * run ended for this caller. Confined to the batch that holds it: the leader writes the outcome, the
 * caller reads it once {@link #isDone()} (both under the group's monitor, or on one thread).
 */
final class RunRequest {

  final Consumer<TransactionContext> change;
  final Thread thread = Thread.currentThread();
  final Instant deadline;

  /** The lockfile the change started from, its delta and deletions, once it ran without throwing. */
  private @Nullable Lockfile start;
  private LockfileDelta own = LockfileDelta.EMPTY;
  private LockfileDelta wanted = LockfileDelta.EMPTY;
  private List<TierPath> deletions = List.of();
  private java.util.Map<TierPath, Runnable> required = java.util.Map.of();
  /** What the change threw: nothing of it is published or kept. */
  private @Nullable Throwable thrown;

  private @Nullable TransactionResult result;
  private @Nullable Throwable failure;
  private boolean done;

  RunRequest(Consumer<TransactionContext> change, Instant deadline) {
    this.change = change;
    this.deadline = deadline;
  }

  /**
   * Runs the change on this thread against an editor over {@code from}; records its delta and
   * deletions, or what it threw (then nothing of it counts).
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
      deletions = editor.deletions();
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
    deletions = List.of();
    required = java.util.Map.of();
  }

  /** Returns the tier paths the change stored and relies on, each with how to store it again. */
  java.util.Map<TierPath, Runnable> required() {
    return required;
  }

  /** Returns the archives the change asked to delete after the publish. */
  List<TierPath> deletions() {
    return deletions;
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
