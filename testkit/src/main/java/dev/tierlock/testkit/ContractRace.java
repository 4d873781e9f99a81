package dev.tierlock.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * Runs one task on several threads released together by a start gate, so that they race for real;
 * no sleeps, and every wait is bounded.
 */
final class ContractRace {

  private static final long BOUND_SECONDS = 30;

  private ContractRace() {}

  /**
   * Runs {@code task(0)} .. {@code task(threads - 1)} at once and returns their results by index.
   *
   * @throws AssertionError if a task throws or the race does not finish within its bound
   */
  static <T> List<T> run(int threads, IntFunction<T> task) {
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "datastore-contract-racer");
      t.setDaemon(true);
      return t;
    });
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        int index = i;
        futures.add(pool.submit(() -> {
          ready.countDown();
          if (!start.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Cannot start racer " + index + ": the start gate never opened");
          }
          return task.apply(index);
        }));
      }
      if (!ready.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("Cannot race " + threads + " threads: they did not all start");
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> future : futures) {
        results.add(future.get(BOUND_SECONDS, TimeUnit.SECONDS));
      }
      return results;
    } catch (ExecutionException e) {
      throw new AssertionError("Cannot finish the race: a racer threw " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("Cannot finish the race: a racer did not finish in " + BOUND_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("Cannot finish the race: interrupted", e);
    } finally {
      pool.shutdownNow();
    }
  }
}
