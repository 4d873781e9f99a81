package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Prepares the restores of one convergence pass (download, verify, extract into staging), up to a
 * bound at once, and hands them over in the order asked for ({@link #start}): the pass applies each
 * as soon as it and every one before it are prepared, on its own thread, under its lock, while the
 * workers go on with the next ones. Nothing is held in memory but the outcomes: each archive goes
 * to the archive cache on disk and its tree to staging. A restore that fails is that name's outcome
 * alone, and leaves nothing staged (the preparer discards its staging). An interrupt of the taking
 * thread stops the workers (interrupting them), waits for them to end, closes every restore
 * prepared and not taken, and gives each name not taken a failure, the thread's interrupt flag set
 * again. The requests and bytes the workers spend are counted ({@link #requests()}, {@link
 * #bytes()}), since the pass's own measurement counts only its thread. Single use, driven from one
 * thread.
 */
final class RestoreWorkers {

  /**
   * What preparing one name gave: the prepared restore, or why it failed; {@code cancelled} when it
   * failed because the workers were stopped (the pass was interrupted or closed), not on its own.
   */
  record Outcome(ExtensionName name, @Nullable PreparedInstall prepared, @Nullable RuntimeException failure,
      boolean cancelled) {
    Outcome {
      Objects.requireNonNull(name, "name");
      if ((prepared == null) == (failure == null)) {
        throw new IllegalArgumentException("Cannot make the outcome of " + name + ": exactly one of a prepared restore"
            + " and a failure is needed");
      }
    }
  }

  private static final AtomicInteger THREADS = new AtomicInteger();

  /** How long one wait of {@link Ordered#next(Clock, Duration)} lasts before it looks at its clock again. */
  private static final Duration SLICE = Duration.ofMillis(50);

  private final int bound;
  private final Function<ExtensionName, PreparedInstall> prepare;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  /**
   * Creates the workers of one pass.
   *
   * @param bound how many restores are prepared at once, 1 or more (1: on the taking thread, as each is taken)
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
   * Starts preparing each of {@code names}, at most the bound at once, in their order; the outcomes
   * are taken in that order from what this returns, which the caller closes.
   */
  Ordered start(List<ExtensionName> names) {
    return new Ordered(List.copyOf(names));
  }

  /**
   * The outcomes of one {@link #start}, taken in order. Closing it stops the workers, waits for
   * them, and closes every restore prepared and not taken; those taken are the caller's.
   */
  final class Ordered implements AutoCloseable {

    private final List<ExtensionName> names;
    private final List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicReference<@Nullable Error> fatal = new AtomicReference<>();
    private final @Nullable ExecutorService pool;
    private int taken;
    /** How many outcomes were handed over: every one from there on is closed by {@link #halt}. */
    private int handed;
    /** Set once the workers were stopped: every outcome not taken by then is a failure. */
    private boolean halted;

    private Ordered(List<ExtensionName> names) {
      this.names = names;
      int threads = Math.min(bound, names.size());
      if (threads <= 1) {
        pool = null;
        return;
      }
      ExecutorService workers = Executors.newFixedThreadPool(threads, daemons());
      for (ExtensionName name : names) {
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        outcomes.add(outcome);
        workers.execute(() -> {
          if (stop.get()) {
            outcome.complete(cancelled(name));
            return;
          }
          try {
            outcome.complete(one(name));
          } catch (Error e) {
            fatal.compareAndSet(null, e);
            stop.set(true);
            outcome.completeExceptionally(e);
          }
        });
      }
      workers.shutdown();
      pool = workers;
    }

    /** {@return whether an outcome is left to take} */
    boolean hasNext() {
      return taken < names.size();
    }

    /**
     * Takes the next outcome, waiting until it is prepared (with a bound of 1, preparing it on this
     * thread). Interrupted meanwhile: the workers are stopped and this outcome, as every later one,
     * is a failure; the interrupt flag is set again.
     *
     * @throws Error if a prepare threw one (the workers are stopped, every restore not taken closed)
     * @throws java.util.NoSuchElementException if none is left
     */
    Outcome next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException("every outcome was taken");
      }
      int index = taken++;
      ExtensionName name = names.get(index);
      if (halted) {
        return cancelled(name);
      }
      if (pool == null) {
        handed = taken;
        return one(name);
      }
      try {
        Outcome outcome = outcomes.get(index).get();
        requireNoFatal();
        handed = taken;
        return outcome;
      } catch (InterruptedException e) {
        halt();
        Thread.currentThread().interrupt();
        return cancelled(name);
      } catch (ExecutionException e) {
        requireNoFatal();
        throw new IllegalStateException("a prepare failed outside its outcome", e.getCause());
      }
    }

    /**
     * Takes the next outcome as {@link #next()} does, but waits at most {@code patience} by {@code
     * clock} for it: past that the workers are stopped and this outcome, as every later one, is a
     * cancellation that says why. With a bound of 1 it prepares on this thread, unbounded.
     */
    Outcome next(Clock clock, Duration patience) {
      if (!hasNext() || halted || pool == null) {
        return next();
      }
      CompletableFuture<Outcome> outcome = outcomes.get(taken);
      Instant deadline = clock.instant().plus(patience);
      try {
        while (true) {
          try {
            outcome.get(SLICE.toMillis(), TimeUnit.MILLISECONDS);
            return next();
          } catch (TimeoutException e) {
            if (!clock.instant().isBefore(deadline)) {
              ExtensionName name = names.get(taken++);
              halt();
              return new Outcome(name, null, InstallException.failed(name.value(), "the convergence pass, holding"
                  + " the checkout's lock, waited " + patience.toSeconds() + " s for it to be prepared and left it"
                  + " and every later restore to the next pass, which waits for it with no lock held", null), true);
            }
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return next();  // halts and says so, the flag set
      } catch (ExecutionException e) {
        return next();  // throws what the prepare threw
      }
    }

    private void requireNoFatal() {
      Error error = fatal.get();
      if (error != null) {
        halt();
        throw error;
      }
    }

    /** Stops the workers, waits for them, and closes every restore not handed over; idempotent. */
    @Override
    public void close() {
      halt();
    }

    private void halt() {
      if (halted) {
        return;
      }
      halted = true;
      if (pool == null) {
        return;
      }
      stop.set(true);
      pool.shutdownNow();
      boolean interrupted = awaitWorkers(pool);
      // from the first outcome not handed over: the one a caller was waiting for when it was
      // interrupted, or when an Error ended the wait, may have been prepared meanwhile
      for (int i = handed; i < outcomes.size(); i++) {
        CompletableFuture<Outcome> outcome = outcomes.get(i);
        if (outcome.isDone() && !outcome.isCompletedExceptionally()) {
          PreparedInstall prepared = outcome.join().prepared();
          if (prepared != null) {
            prepared.close();
          }
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static Outcome cancelled(ExtensionName name) {
    return new Outcome(name, null, InstallException.failed(name.value(),
        "the convergence pass was interrupted before its restore was applied; it is tried again", null), true);
  }

  /** Prepares {@code name} on this thread, counting its requests; a failure is its outcome. */
  private Outcome one(ExtensionName name) {
    Tierlock.Measured<Outcome> measured = Tierlock.measure(() -> {
      try {
        return new Outcome(name, prepare.apply(name), null, false);
      } catch (RuntimeException e) {
        return new Outcome(name, null, e, false);
      }
    });
    requests.addAndGet(measured.requests());
    bytes.addAndGet(measured.bytes());
    return measured.value();
  }

  /**
   * Waits for every worker of {@code pool}, which was shut down now, to end: an interrupt meanwhile
   * does not stop the wait, so nothing they stage is left behind.
   *
   * @return whether this thread was interrupted
   */
  private static boolean awaitWorkers(ExecutorService pool) {
    boolean interrupted = false;
    while (true) {
      try {
        if (pool.awaitTermination(1, TimeUnit.MINUTES)) {
          return interrupted;
        }
      } catch (InterruptedException e) {
        interrupted = true;
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
