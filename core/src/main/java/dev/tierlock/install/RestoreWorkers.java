package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Prepares the restores of one convergence pass (download, verify, extract into staging), up to a
 * bound at once, and hands them back in the order asked for: the pass applies them in that order,
 * on its own thread, under its lock. Nothing is held in memory but the outcomes: each archive goes
 * to the archive cache on disk and its tree to staging. A restore that fails is that name's
 * outcome alone, and leaves nothing staged (the preparer discards its staging). An interrupt of the
 * waiting thread stops the workers (interrupting them), waits for them to end, closes every
 * restore prepared so far and gives each name a failure, the thread's interrupt flag set again.
 * The requests and bytes the workers spend are counted ({@link #requests()}, {@link #bytes()}),
 * since the pass's own measurement counts only its thread. Single use, driven from one thread.
 */
final class RestoreWorkers {

  /** What preparing one name gave: the prepared restore, or why it failed. */
  record Outcome(ExtensionName name, @Nullable PreparedInstall prepared, @Nullable RuntimeException failure) {
    Outcome {
      Objects.requireNonNull(name, "name");
      if ((prepared == null) == (failure == null)) {
        throw new IllegalArgumentException("Cannot make the outcome of " + name + ": exactly one of a prepared restore"
            + " and a failure is needed");
      }
    }
  }

  private static final AtomicInteger THREADS = new AtomicInteger();

  private final int bound;
  private final Function<ExtensionName, PreparedInstall> prepare;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  /**
   * Creates the workers of one pass.
   *
   * @param bound how many restores are prepared at once, 1 or more (1: on the calling thread)
   * @param prepare prepares one name; thread-safe; throws to fail that name alone
   */
  RestoreWorkers(int bound, Function<ExtensionName, PreparedInstall> prepare) {
    if (bound < 1) {
      throw new IllegalArgumentException("Cannot prepare " + bound + " restores at once: the bound is 1 or more");
    }
    this.bound = bound;
    this.prepare = Objects.requireNonNull(prepare, "prepare");
  }

  /** {@return the datastore requests the prepares made} */
  long requests() {
    return requests.get();
  }

  /** {@return the body bytes those requests downloaded} */
  long bytes() {
    return bytes.get();
  }

  /**
   * Prepares each of {@code names}, at most the bound at once, and returns their outcomes in the
   * order of {@code names}; the caller closes every prepared restore it does not apply.
   *
   * @throws Error if a prepare threw one (every restore prepared by then is closed)
   */
  List<Outcome> prepareAll(List<ExtensionName> names) {
    int threads = Math.min(bound, names.size());
    if (threads <= 1) {
      List<Outcome> outcomes = new ArrayList<>(names.size());
      names.forEach(name -> outcomes.add(one(name)));
      return outcomes;
    }
    AtomicReferenceArray<@Nullable Outcome> done = new AtomicReferenceArray<>(names.size());
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<@Nullable Error> fatal = new AtomicReference<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads, daemons());
    for (int i = 0; i < names.size(); i++) {
      int index = i;
      pool.execute(() -> {
        if (stop.get()) {
          return;
        }
        try {
          done.set(index, one(names.get(index)));
        } catch (Error e) {
          fatal.compareAndSet(null, e);
          stop.set(true);
        }
      });
    }
    pool.shutdown();
    boolean interrupted = awaitWorkers(pool, stop);
    Error error = fatal.get();
    if (interrupted || error != null) {
      closeAll(done);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      if (error != null) {
        throw error;
      }
      List<Outcome> cancelled = new ArrayList<>(names.size());
      names.forEach(name -> cancelled.add(new Outcome(name, null, InstallException.failed(name.value(),
          "the convergence pass was interrupted before its restore was applied; it is tried again", null))));
      return cancelled;
    }
    List<Outcome> outcomes = new ArrayList<>(names.size());
    for (int i = 0; i < names.size(); i++) {
      outcomes.add(Objects.requireNonNull(done.get(i), "every worker ran"));
    }
    return outcomes;
  }

  /** Prepares {@code name} on this thread, counting its requests; a failure is its outcome. */
  private Outcome one(ExtensionName name) {
    Tierlock.Measured<Outcome> measured = Tierlock.measure(() -> {
      try {
        return new Outcome(name, prepare.apply(name), null);
      } catch (RuntimeException e) {
        return new Outcome(name, null, e);
      }
    });
    requests.addAndGet(measured.requests());
    bytes.addAndGet(measured.bytes());
    return measured.value();
  }

  /**
   * Waits for every worker to end. Interrupted meanwhile: stops the rest (the running ones are
   * interrupted, the queued ones never start) and waits for them to end all the same, so nothing
   * they stage is left behind.
   *
   * @return whether this thread was interrupted
   */
  private static boolean awaitWorkers(ExecutorService pool, AtomicBoolean stop) {
    boolean interrupted = false;
    while (true) {
      try {
        if (pool.awaitTermination(1, TimeUnit.MINUTES)) {
          return interrupted;
        }
      } catch (InterruptedException e) {
        interrupted = true;
        stop.set(true);
        pool.shutdownNow();
      }
    }
  }

  private static void closeAll(AtomicReferenceArray<@Nullable Outcome> done) {
    for (int i = 0; i < done.length(); i++) {
      Outcome outcome = done.get(i);
      if (outcome != null && outcome.prepared() != null) {
        outcome.prepared().close();
      }
    }
  }

  private static ThreadFactory daemons() {
    return work -> {
      Thread thread = new Thread(work, "tierlock-converge-restore-" + THREADS.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
