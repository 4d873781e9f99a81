package dev.tierlock.benchmarks;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.Sleeper;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.Converger;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.testkit.CountingDatastore;
import dev.tierlock.testkit.DatastoreOperation;
import dev.tierlock.testkit.FakeRemote;
import dev.tierlock.testkit.TempDirLayout;
import dev.tierlock.testkit.TestArchives;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Section 10: convergence at scale, through the public {@link Converger} API. A fake remote with a
 * fixed latency on every call holds a lockfile of N small entries (a version and a checksum each)
 * and each entry's archive (a manifest and one file); a fresh checkout converges to it (the first
 * pass: every entry restored), then converges again (the no-op pass). Each pass runs on a thread
 * of its own and is given a bound: one that has not returned by then is interrupted and reported as
 * not finished.
 */
final class ConvergeScale {

  /**
   * One size's figures.
   *
   * @param entries the lockfile's entries
   * @param restores the restores prepared at once (0: the converger's default)
   * @param bound how long the first pass was given
   * @param first the first pass, empty when it did not finish within the bound
   * @param noOp the no-op pass after it, empty when the first did not finish
   */
  record Row(int entries, int restores, Duration bound, Optional<Pass> first, Optional<Pass> noOp) {}

  /**
   * One pass.
   *
   * @param seconds its wall time
   * @param calls its datastore calls, by operation
   * @param restored entries it restored
   * @param failed entries left pending or unrestorable
   * @param localBytesRead bytes this process read from local files during the pass ({@code rchar}), if the OS tells
   * @param peakReads the most archive reads ({@code openStream} calls) in flight at once
   * @param cpuSeconds the CPU time of this whole process over the pass (every thread: GC and JIT too)
   * @param forces the files and directories this process forced to disk during the pass ({@link FileForces}), the
   *     pass's own thread's apart (it applies the restores one at a time, holding the lock), if counted
   */
  record Pass(double seconds, CallCounts.Count calls, int restored, int failed, OptionalLong localBytesRead,
      int peakReads, double cpuSeconds, Optional<FileForces.Counted> forces) {

    /** Returns the forces of every thread over the pass, if counted. */
    OptionalLong fsyncs() {
      return forces.map(f -> OptionalLong.of(f.all())).orElse(OptionalLong.empty());
    }

    /** Returns the archive reads ({@code openStream} calls) of the pass. */
    long reads() {
      return calls.calls().getOrDefault(DatastoreOperation.OPEN_STREAM, 0L);
    }
  }

  /** The name of the thread each pass runs on. */
  private static final String PASS_THREAD = "converge-pass";

  private final Duration latency;

  ConvergeScale(Duration latency) {
    this.latency = latency;
  }

  /** Returns the latency added to every call. */
  Duration latency() {
    return latency;
  }

  /**
   * Measures a lockfile of {@code entries} entries, {@code restores} prepared at once (0: the
   * converger's default), the first pass bounded by {@code bound}; the
   * checkout is in a temp directory of its own, deleted once the pass stopped (so that a pass still
   * stopping never holds up the deletion of the run's work directory).
   */
  Row measure(int entries, int restores, Duration bound) throws InterruptedException {
    Path checkout = WorkDirectory.create("tierlock-bench-converge-").resolve("checkout");
    ExecutorService passes = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, PASS_THREAD);
      t.setDaemon(true);
      return t;
    });
    try (FakeRemote remote = FakeRemote.create(); PeakReads peak = new PeakReads(remote);
        CountingDatastore counting = CountingDatastore.wrap(peak)) {
      plant(remote, entries);
      if (!latency.isZero()) {
        remote.faults().latency(latency, Sleeper.SYSTEM, Duration.ofHours(1));
      }
      try (Tierlock tierlock = TierlockCommitter.open(counting, checkout, "converger", CommitMode.LOCKED,
          Protocol.GroupCommit.ON)) {
        tierlock.checkDatastore();
        Converger.Builder builder = Converger.builder(tierlock, TempDirLayout.in(checkout));
        if (restores > 0) {
          builder.parallelRestores(restores);
        }
        Converger converger = builder.build();
        Optional<Pass> first = pass(passes, converger, counting, peak, bound);
        Optional<Pass> noOp = first.isEmpty() ? Optional.empty() : pass(passes, converger, counting, peak, bound);
        return new Row(entries, restores, bound, first, noOp);
      }
    } finally {
      passes.shutdownNow();
      if (passes.awaitTermination(60, TimeUnit.SECONDS)) {
        WorkDirectory.delete(checkout.getParent());
      } else {
        deleteOnceStopped(passes, checkout.getParent());
      }
    }
  }

  /** Deletes {@code directory} once the interrupted pass on {@code passes} stopped, on a daemon thread of its own. */
  private static void deleteOnceStopped(ExecutorService passes, Path directory) {
    Thread cleaner = new Thread(() -> {
      try {
        if (passes.awaitTermination(1, TimeUnit.HOURS)) {
          WorkDirectory.delete(directory);
        }
      } catch (InterruptedException | RuntimeException e) {
        // the directory stays in the temp directory: nothing measured depends on it
      }
    }, "converge-cleanup");
    cleaner.setDaemon(true);
    cleaner.start();
  }

  private static Optional<Pass> pass(ExecutorService passes, Converger converger, CountingDatastore counting,
      PeakReads peak, Duration bound) throws InterruptedException {
    counting.reset();
    peak.reset();
    OptionalLong before = ProcessReads.now();
    long cpuBefore = cpuNanos();
    Optional<FileForces> forces = FileForces.start(PASS_THREAD);
    long start = System.nanoTime();
    Future<ConvergeReport> future = passes.submit(converger::converge);
    ConvergeReport report;
    try {
      report = future.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      forces.ifPresent(FileForces::stop);
      return Optional.empty();
    } catch (ExecutionException e) {
      forces.ifPresent(FileForces::stop);
      throw new IllegalStateException("Cannot measure a converge: the pass failed", e.getCause());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Optional<FileForces.Counted> fsyncs = forces.flatMap(FileForces::stop);
    double cpu = (cpuNanos() - cpuBefore) / 1e9;
    OptionalLong after = ProcessReads.now();
    OptionalLong read = before.isPresent() && after.isPresent()
        ? OptionalLong.of(after.getAsLong() - before.getAsLong()) : OptionalLong.empty();
    Map<DatastoreOperation, Long> calls = new LinkedHashMap<>(counting.counts());
    return Optional.of(new Pass(seconds, new CallCounts.Count(calls), report.restored().size(),
        report.pending().size() + report.unrestorable().size(), read, peak.peak(), cpu, fsyncs));
  }

  /** Returns this process's CPU time so far, in nanoseconds (0 where the JVM does not tell). */
  private static long cpuNanos() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os ? Math.max(0, os.getProcessCpuTime()) : 0;
  }

  /** Keeps the most {@code openStream} calls in flight at once. Closing closes the wrapped store. */
  private static final class PeakReads extends ForwardingDatastore {
    private final Datastore delegate;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();

    PeakReads(Datastore delegate) {
      this.delegate = delegate;
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }

    @Override
    protected boolean passesPreconditionsThrough() {
      return true;
    }

    @Override
    public Optional<ObjectStream> openStream(ObjectKey key) {
      peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      try {
        return super.openStream(key);
      } finally {
        inFlight.decrementAndGet();
      }
    }

    void reset() {
      peak.set(0);
    }

    int peak() {
      return peak.get();
    }
  }

  /** Plants the lockfile of {@code entries} small entries and every entry's archive. */
  private static void plant(FakeRemote remote, int entries) {
    Map<ExtensionName, LockfileEntry> lockfile = new LinkedHashMap<>();
    for (int i = 0; i < entries; i++) {
      String name = "@converge" + (i % 50) + "/e" + i;
      byte[] archive = TestArchives.extension(name, "1.0.0").file("index.js", "module.exports = " + i + ";\n").build();
      String sha = TestArchives.sha256(archive);
      ExtensionName extension = ExtensionName.of(name);
      remote.plant(Namespace.NONE.key(ExtensionArchiveKey.of(extension, sha).tierPath()), archive);
      lockfile.put(extension, LockfileEntry.builder("1.0.0", Fixtures.PULLED_AT).checksum(sha).build());
    }
    remote.plant(Namespace.NONE.key(TierPath.LOCKFILE), Lockfile.of(lockfile).bytes());
  }
}
