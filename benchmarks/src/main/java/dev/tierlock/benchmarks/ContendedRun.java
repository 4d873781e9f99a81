package dev.tierlock.benchmarks;

import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

/**
 * N writers committing as fast as they can for a window, each its own names and values, then the
 * final lockfile checked for every acknowledged change. A warm-up precedes the window (commits in it
 * are checked, not timed); a writer still in a commit when the window closes finishes it within a
 * grace period, then is interrupted (a failure the interruption causes is not counted); a writer that
 * does not return within {@link #GIVE_UP} of its interrupt is left behind and counted as hung (its
 * thread is a daemon, its commit never ended).
 * Throughput counts the commits acknowledged inside the window; latency is that of every commit
 * started inside it, one still running when its writer was interrupted counted at the time it had
 * taken (a lower bound), so that slow commits are not left out of the percentiles.
 */
final class ContendedRun {

  /** How long a run lasts. */
  record Timing(Duration warmup, Duration window, Duration grace) {}

  /** How long an interrupted writer has to return before it is counted as hung. */
  static final Duration GIVE_UP = Duration.ofSeconds(15);

  /** How the writers ended: when the first was interrupted (or never), and how many never returned. */
  private record Ending(long interruptAt, int hung) {}

  private final Protocol protocol;
  private final int writers;
  private final Timing timing;

  ContendedRun(Protocol protocol, int writers, Timing timing) {
    this.protocol = protocol;
    this.writers = writers;
    this.timing = timing;
  }

  /**
   * Runs on {@code store} (fresh and empty, of {@code kind}), the writers' checkouts under {@code
   * workDirectory}; {@code kind} is told when the writers are ready and when they are done. The
   * calls counted, by the object they name, are those from the writers' start (their self-checks
   * apart) until every writer returned.
   */
  RunResult run(StoreKind kind, KeyCalls store, Path workDirectory) throws InterruptedException {
    try (Participants participants = Participants.open(protocol, store, workDirectory, writers)) {
      kind.beginMeasuring();
      store.reset();
      int refusedBefore = LeaseReleaseFailures.count();
      List<WriterLog> logs = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      CountDownLatch start = new CountDownLatch(1);
      long begin = System.nanoTime();
      long measureFrom = begin + timing.warmup().toNanos();
      long stopAt = measureFrom + timing.window().toNanos();
      for (int i = 0; i < writers; i++) {
        WriterLog log = new WriterLog(i);
        logs.add(log);
        Committer committer = participants.committer(i);
        Thread thread = new Thread(() -> write(committer, log, start, stopAt), "writer-" + i);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
      }
      start.countDown();
      Thread.sleep(Math.max(0, (stopAt - System.nanoTime()) / 1_000_000));
      Ending ending = awaitOrInterrupt(threads, stopAt + timing.grace().toNanos());
      kind.endMeasuring();
      KeyCalls.Counts byKey = store.counts();
      long calls = byKey.total();
      return result(logs, finalLockfile(store), measureFrom, stopAt, ending,
          LeaseReleaseFailures.count() - refusedBefore, calls, byKey);
    } finally {
      kind.endMeasuring();
    }
  }

  private static void write(Committer committer, WriterLog log, CountDownLatch start, long stopAt) {
    try {
      start.await();
    } catch (InterruptedException e) {
      return;
    }
    for (long sequence = 1; System.nanoTime() < stopAt && !Thread.currentThread().isInterrupted(); sequence++) {
      LockfileEntry entry = Fixtures.plainEntry(WriterLog.version(sequence));
      long t0 = System.nanoTime();
      String error = null;
      try {
        committer.put(WriterLog.name(log.writer(), sequence), entry);
      } catch (RuntimeException e) {
        error = Errors.code(e);
      }
      log.add(new WriterLog.Attempt(sequence, t0, System.nanoTime(), error));
    }
  }

  /** Waits for every writer until {@code deadline}, then interrupts those left and gives them {@link #GIVE_UP}. */
  private static Ending awaitOrInterrupt(List<Thread> threads, long deadline) throws InterruptedException {
    for (Thread thread : threads) {
      long left = deadline - System.nanoTime();
      if (left > 0) {
        thread.join(Math.max(1, left / 1_000_000));
      }
    }
    long interruptAt = Long.MAX_VALUE;
    for (Thread thread : threads) {
      if (thread.isAlive()) {
        interruptAt = Math.min(interruptAt, System.nanoTime());
        thread.interrupt();
      }
    }
    long giveUpAt = System.nanoTime() + GIVE_UP.toNanos();
    int hung = 0;
    for (Thread thread : threads) {
      long left = giveUpAt - System.nanoTime();
      if (left > 0) {
        thread.join(Math.max(1, left / 1_000_000));
      }
      if (thread.isAlive()) {
        hung++;
      }
    }
    return new Ending(interruptAt, hung);
  }

  private static Lockfile finalLockfile(Datastore store) {
    ReadResult read = store.read(Namespace.NONE.key(TierPath.LOCKFILE), ReadCondition.always(), Lockfile.MAX_BYTES);
    return read instanceof ReadResult.Found found ? Lockfile.parse(found.bytes(), store.describe()) : Lockfile.EMPTY;
  }

  private RunResult result(List<WriterLog> logs, Lockfile last, long measureFrom, long stopAt, Ending ending,
      int releasesRefused, long calls, KeyCalls.Counts byKey) {
    long interruptAt = ending.interruptAt();
    List<Long> latencies = new ArrayList<>();
    Map<String, Integer> errors = new TreeMap<>();
    int[] perWriter = new int[writers];
    int acknowledged = 0;
    int lost = 0;
    for (WriterLog log : logs) {
      for (WriterLog.Attempt attempt : log.attempts()) {
        boolean startedInside = attempt.startNanos() >= measureFrom && attempt.startNanos() < stopAt;
        boolean cutOff = attempt.endNanos() >= interruptAt;
        if (startedInside && (attempt.acknowledged() || cutOff)) {
          latencies.add(attempt.endNanos() - attempt.startNanos());
        }
        if (!attempt.acknowledged()) {
          if (!cutOff) {
            errors.merge(attempt.error(), 1, Integer::sum);
          }
          continue;
        }
        acknowledged++;
        if (!WriterLog.version(attempt.sequence()).equals(
            last.entry(WriterLog.name(log.writer(), attempt.sequence())).map(LockfileEntry::version).orElse(null))) {
          lost++;
        }
        if (attempt.endNanos() >= measureFrom && attempt.endNanos() <= stopAt) {
          perWriter[log.writer()]++;
        }
      }
    }
    double seconds = (stopAt - measureFrom) / 1e9;
    int commits = Arrays.stream(perWriter).sum();
    long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    return new RunResult(protocol, writers, seconds, commits, commits / seconds,
        percentile(sorted, 0.50), percentile(sorted, 0.99), Arrays.stream(perWriter).min().orElse(0),
        (double) commits / writers, errors, acknowledged, lost, releasesRefused, ending.hung(), calls, byKey);
  }

  /** Returns the nearest-rank percentile {@code p} of {@code sorted} nanoseconds, in milliseconds (NaN when empty). */
  static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))] / 1e6;
  }
}
