package dev.tierlock;

import dev.tierlock.spi.DatastoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The racers of one {@link SelfCheck}: {@value SelfCheck#RACERS} threads, kept for the whole check,
 * that start each race's calls together (each waits on one latch until all are ready) and report
 * each call's answer, or the {@link DatastoreException} it threw. Not thread-safe: one check runs
 * one race at a time. Closing stops the threads.
 */
final class SelfCheckRace implements AutoCloseable {

  /** One racer's call. */
  @FunctionalInterface
  interface Racer {
    /**
     * Makes racer {@code i}'s call.
     *
     * @param i the racer's index, from 0
     * @return the store's answer
     */
    Object call(int i);
  }

  private final String store;
  private final ExecutorService pool = Executors.newFixedThreadPool(SelfCheck.RACERS, r -> {
    Thread t = new Thread(r, "tierlock-selfcheck");
    t.setDaemon(true);
    return t;
  });

  /** Starts the racers' threads; {@code store} describes the store in messages. */
  SelfCheckRace(String store) {
    this.store = store;
  }

  /**
   * Runs {@value SelfCheck#RACERS} calls at once and returns, by racer, each one's answer or the
   * {@link DatastoreException} it threw; any other exception of a racer is rethrown.
   *
   * @throws InterruptedOperationException if this thread is interrupted while the racers run
   */
  List<Object> run(Racer racer) {
    CountDownLatch ready = new CountDownLatch(SelfCheck.RACERS);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Object>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < SelfCheck.RACERS; i++) {
        int n = i;
        futures.add(pool.submit(() -> {
          ready.countDown();
          go.await();
          try {
            return racer.call(n);
          } catch (DatastoreException e) {
            return e;
          }
        }));
      }
      ready.await();
      go.countDown();
      List<Object> results = new ArrayList<>();
      for (Future<Object> future : futures) {
        results.add(future.get());
      }
      return results;
    } catch (InterruptedException e) {
      futures.forEach(f -> f.cancel(true));
      throw new InterruptedOperationException("Cannot run the self-check of " + store, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException("Cannot run the self-check of " + store + ": " + e.getCause(), e.getCause());
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
