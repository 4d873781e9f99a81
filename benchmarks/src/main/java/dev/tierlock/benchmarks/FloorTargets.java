package dev.tierlock.benchmarks;

import dev.tierlock.CommitMode;
import dev.tierlock.benchmarks.Targets.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The targets of "Performance at the floor" (its "What to build", 1 to 9), each set against what
 * this run measured. The modes judged "without the lease" are every mode but {@code LOCKED}.
 */
final class FloorTargets {

  private static final int N = ScaleTables.WRITERS;

  private final Measurements m;
  private final List<Row> rows = new ArrayList<>();

  private FloorTargets(Measurements m) {
    this.m = m;
  }

  /** Returns the rows for {@code m}, in the order; a target whose part did not run is left out. */
  static List<Row> of(Measurements m) {
    FloorTargets t = new FloorTargets(m);
    t.modes();
    t.warmCalls();
    t.installs();
    t.starvation();
    t.leaseWaits();
    t.durable();
    t.gcs();
    t.converge();
    t.startup();
    return t.rows;
  }

  /** Returns the modes that commit without the lease: every mode but {@code LOCKED}. */
  private static List<CommitMode> leaseless() {
    return Protocol.MODES.stream().filter(mode -> mode != CommitMode.LOCKED).toList();
  }

  private static Optional<CommitMode> auto() {
    return Protocol.MODES.stream().filter(mode -> mode.name().equals("AUTO")).findFirst();
  }

  private void modes() {
    String modes = Protocol.MODES.stream().map(Protocol::modeLabel).collect(Collectors.joining(", "));
    rows.add(new Row("1. auto commit mode beside locked and optimistic (its rule and default are the engine's tests)",
        "modes in this build: " + modes, verdict(auto().isPresent())));
  }

  private void warmCalls() {
    for (StoreRuns store : ScaleTables.stores(m)) {
      String target = "2. one call per warm commit, " + store.label();
      if (store.slug().equals("gcs") && !m.scale().gcsSpaced().isEmpty()) {
        List<SpacedCommits.Row> spaced = m.scale().gcsSpaced().stream().filter(r -> r.mode() != CommitMode.LOCKED)
            .toList();
        rows.add(new Row(target + " (the spaced commits)", join(spaced, r -> Protocol.modeLabel(r.mode()) + " "
            + String.format("%.2f", r.callsPerCommit())), verdict(spaced.stream().allMatch(r -> r.callsPerCommit() <= 1))));
        continue;
      }
      List<RunResult> runs = leaseless().stream().flatMap(mode -> store.find(Protocol.separate(mode), 1).stream())
          .toList();
      if (runs.isEmpty()) {
        continue;
      }
      rows.add(new Row(target + " (1 writer's run, its one cold commit included: <= 1.05)",
          join(runs, r -> Protocol.modeLabel(r.protocol().mode()) + " " + String.format("%.2f", r.callsPerCommit())),
          verdict(runs.stream().allMatch(r -> r.callsPerCommit() <= 1.05)))
          .causedBy("per commit, " + join(runs, r -> Protocol.modeLabel(r.protocol().mode()) + ": "
              + r.keys().describe(r.acknowledged())) + (store.slug().equals("s3") ? ". S3's version of an object (its"
              + " ETag) digests its bytes alone, so a version can repeat: a warm commit first stats the head for the"
              + " lineage metadata its version does not vouch for, by which an unanswered write is judged"
              + " (`LockfileStore.Fetch.EXACT`); the bytes alone would not tell a peer's write of the same bytes" : "")));
    }
  }

  private void installs() {
    List<PinnedInstalls.Row> warm = m.scale().pinned().stream()
        .filter(r -> r.mode() != CommitMode.LOCKED && r.archiveUploads() > 0).toList();
    if (warm.isEmpty()) {
      return;
    }
    rows.add(new Row("3. a warm install commits without the lease: its archive upload plus 1 call",
        join(warm, r -> Protocol.modeLabel(r.mode()) + ", " + r.install() + ": " + r.archiveUploads() + " upload + "
            + r.beside()), verdict(warm.stream().allMatch(r -> r.beside() <= 1)))
        .causedBy(join(warm, r -> Protocol.modeLabel(r.mode()) + ", " + r.install() + ": " + r.keys().describe(1))
            + ". Beside the upload and the lockfile write: the mark of each archive whose pin the commit changes (the"
            + " new one, and on an upgrade the one it replaces), written before the lockfile write, since a collection"
            + " deletes only archives whose mark is older than its window; and a stat of the archive stored, after"
            + " the publish, which stores it again if a collection took it between the mark and the pin"
            + " (docs/design.md, \"Archives\"). One call would need a collection fenced by the upload itself"));
  }

  private void starvation() {
    for (StoreRuns store : ScaleTables.stores(m)) {
      Optional<RunResult> baseline = store.find(Protocol.BASELINE, N);
      for (CommitMode mode : leaseless()) {
        Protocol protocol = Protocol.separate(mode);
        Optional<RunResult> window = store.find(protocol, N);
        // on the fake, judged on the long run where there is one: a short window is mostly the start
        Optional<RunResult> judged = store.slug().equals("fake") && m.longRun(protocol).isPresent()
            ? m.longRun(protocol) : window;
        judged.ifPresent(r -> {
          double base = baseline.map(RunResult::commitsPerSecond).orElse(Double.NaN);
          boolean met = r.minPerWriter() >= r.meanPerWriter() / 4 && !(r.commitsPerSecond() < base);
          String beside = r == window.orElse(null) ? "" : window.map(w -> "; in the " + MarkdownTable.number(w.seconds())
              + " s window of section 2: min " + w.minPerWriter() + ", mean " + MarkdownTable.number(w.meanPerWriter()))
              .orElse("");
          rows.add(new Row("4. " + Protocol.modeLabel(mode) + ", " + N + " writers, " + store.label() + " ("
              + MarkdownTable.number(r.seconds()) + " s): every writer >= a quarter of the mean, and >= the baseline"
              + " protocol's commits/s",
              "min " + r.minPerWriter() + ", mean " + MarkdownTable.number(r.meanPerWriter()) + "; "
                  + MarkdownTable.number(r.commitsPerSecond()) + " vs " + MarkdownTable.number(base) + " commits/s = "
                  + MarkdownTable.ratio(r.commitsPerSecond() / base) + beside, verdict(met))
              .causedBy(starved(r, baseline, store.limit())));
        });
      }
    }
  }

  /**
   * Returns why a run without the lease at {@code N} writers missed: its calls by object per commit;
   * when a writer fell under a quarter of the mean, the turns taken under the lease; when it fell
   * under the baseline, what the baseline's waits cost it.
   */
  private static String starved(RunResult r, Optional<RunResult> baseline, Optional<LineChart.Level> limit) {
    StringBuilder why = new StringBuilder("per commit: " + r.keys().describe(r.acknowledged()));
    if (limit.isPresent()) {
      why.append(". The store itself allows ").append(limit.get().label()).append(": the ").append(r.writers())
          .append(" writers share it, so a ").append(MarkdownTable.number(r.seconds())).append(" s window holds about ")
          .append(MarkdownTable.number(limit.get().value() * r.seconds() / r.writers())).append(" commits a writer")
          .append(" at best");
    } else if (r.minPerWriter() < r.meanPerWriter() / 4) {
      why.append(". A writer that lost 3 races in a row, or met the lease held, publishes under the lease (the lease"
          + " calls above): within the ").append(MarkdownTable.number(r.seconds())).append(" s window the writers that"
          + " yielded wait behind each other on it, its hand-overs as in target 5");
    }
    baseline.filter(b -> r.commitsPerSecond() < b.commitsPerSecond()).ifPresent(b -> why.append(". The baseline"
        + " protocol's losers sleep 1 to 8 s without a call (its writers: min ").append(b.minPerWriter())
        .append(" of mean ").append(MarkdownTable.number(b.meanPerWriter())).append("), so it runs as one writer at ")
        .append(MarkdownTable.number(b.callsPerCommit())).append(" calls per commit, where every writer here stays in"
            + " the race at ").append(MarkdownTable.number(r.callsPerCommit())).append(" calls per commit, on a server"
            + " that shares this machine's cores"));
    return why.toString();
  }

  private void leaseWaits() {
    for (StoreRuns store : ScaleTables.stores(m)) {
      if (store.slug().equals("gcs")) {
        continue;
      }
      Optional<RunResult> locked = store.slug().equals("fake") && m.longRun(Protocol.LOCKED).isPresent()
          ? m.longRun(Protocol.LOCKED)
          : store.find(Protocol.LOCKED, N);
      locked.ifPresent(r -> {
        double base = store.find(Protocol.BASELINE, N).map(RunResult::commitsPerSecond).orElse(Double.NaN);
        double ratio = r.commitsPerSecond() / base;
        boolean met = r.callsPerCommit() <= 6 && ratio >= 0.9 && r.minPerWriter() >= r.meanPerWriter() / 4
            && r.tailRatio() <= 10;
        rows.add(new Row("5. locked, " + N + " writers, " + store.label() + " (" + MarkdownTable.number(r.seconds())
            + " s): <= 6 calls per commit, >= 0.9x the baseline protocol, every writer >= a quarter of the mean, "
            + "p99 <= 10x p50",
            MarkdownTable.number(r.callsPerCommit()) + " calls; " + MarkdownTable.ratio(ratio) + "; min "
                + r.minPerWriter() + " of mean " + MarkdownTable.number(r.meanPerWriter()) + "; p99/p50 "
                + MarkdownTable.ratio(r.tailRatio()), verdict(met))
            .causedBy(waited(r, store.find(Protocol.BASELINE, N))));
      });
    }
  }

  /**
   * Returns why a locked run at {@code N} writers missed: its calls by object per commit, those of the
   * holder apart; and what the baseline's waits cost it.
   */
  private static String waited(RunResult r, Optional<RunResult> baseline) {
    double commits = r.acknowledged();
    double lease = r.keys().of(KeyCalls.Kind.LEASE) / commits;
    StringBuilder why = new StringBuilder("per commit: " + r.keys().describe(commits) + ". Of the "
        + MarkdownTable.number(lease) + " lease calls, the holder makes 2 (its create and its delete); the other "
        + MarkdownTable.number(lease - 2) + " are the waiters' tries, refused creates and reads of the holder: a"
        + " waiter learns of a hand-over only by trying, since the store tells nobody");
    baseline.filter(b -> r.commitsPerSecond() < 0.9 * b.commitsPerSecond()).ifPresent(b -> why.append(". The"
        + " baseline protocol's losers sleep 1 to 8 s without a call (its writers: min ").append(b.minPerWriter())
        .append(" of mean ").append(MarkdownTable.number(b.meanPerWriter())).append("), so one writer commits back to"
            + " back; here each hand-over waits for a waiter's next try, and every writer gets turns"));
    return why.toString();
  }

  private void durable() {
    m.scale().durable().ifPresent(d -> {
      Optional<DurableWork.Row> locked = d.find(Protocol.LOCKED);
      Optional<DurableWork.Row> base = d.find(Protocol.BASELINE);
      if (locked.isEmpty() || base.isEmpty()) {
        return;
      }
      DurableWork.Row l = locked.get();
      DurableWork.Row b = base.get();
      if (l.fsyncs().isEmpty() || b.fsyncs().isEmpty()) {
        rows.add(new Row("6. locked commit, filesystem: fsyncs and renames <= the baseline's + 1", d.strace(),
            "not measured"));
      } else {
        rows.add(counted("fsyncs", l.fsyncs().get(), b.fsyncs().get()));
        rows.add(counted("renames", l.renames().orElseThrow(), b.renames().orElseThrow()));
      }
      double ratio = l.leaseHoldMillis() / b.leaseHoldMillis();
      rows.add(new Row("6. locked commit, filesystem: lease hold <= 1.2x the baseline's",
          MarkdownTable.number(l.leaseHoldMillis()) + " vs " + MarkdownTable.number(b.leaseHoldMillis()) + " ms = "
              + MarkdownTable.ratio(ratio), verdict(ratio <= 1.2))
          .causedBy("the pending record is written durably (" + l.fsyncs().map(f -> MarkdownTable.number(f)
              + " fsyncs a commit against the baseline's " + b.fsyncs().map(MarkdownTable::number).orElse("?"))
              .orElse("fsyncs not counted") + ") inside the hold: it names the version the write is conditional on,"
              + " which is read under the lease, and it must be durable before a write that may land"));
    });
  }

  private static Row counted(String what, double ours, double baseline) {
    // per-commit counts are whole; a one-off call in one of the two traced runs moves a figure by 1/N
    return new Row("6. locked commit, filesystem: " + what + " <= the baseline's + 1 (strace, per commit to one decimal)",
        String.format("%.2f vs %.2f per commit", ours, baseline),
        verdict(Math.round(ours * 10) <= Math.round(baseline * 10) + 10));
  }

  private void gcs() {
    m.gcs().ifPresent(gcs -> {
      Optional<CommitMode> auto = auto();
      Optional<RunResult> alone = auto.flatMap(mode -> gcs.find(Protocol.separate(mode), 1));
      Optional<SpacedCommits.Row> spaced = m.scale().gcsSpaced().stream()
          .filter(r -> auto.isPresent() && r.mode() == auto.get()).findFirst();
      String target = "7. GCS, auto, 1 writer: commits at the per-object limit (>= 0.9/s), and p50 <= 1.5 RTT when "
          + "the lockfile was not written in the last second";
      if (alone.isEmpty() || spaced.isEmpty()) {
        rows.add(new Row(target, "no auto mode in this build", verdict(false)));
        return;
      }
      double rate = alone.get().commitsPerSecond();
      double p50 = spaced.get().p50Millis();
      rows.add(new Row(target, MarkdownTable.number(rate) + " commits/s; spaced p50 " + MarkdownTable.number(p50)
          + " ms, RTT " + MarkdownTable.number(spaced.get().roundTripMillis()) + " ms (measured just before them)",
          verdict(rate >= 0.9 && p50 <= 1.5 * spaced.get().roundTripMillis()))
          .causedBy(String.format("%s calls a commit, no wait (nothing paced: the last write was over a second ago);"
              + " the one write, the lockfile's, took %s ms (p50), itself %s the RTT (half a write and a read sent back to"
              + " back);"
              + " the other %s ms are local: the pending record made durable before the write, the cached copy"
              + " written after it (atomically, since the original tool reads it), the checkout's lock",
              MarkdownTable.number(spaced.get().callsPerCommit()), MarkdownTable.number(spaced.get().writeP50Millis()),
              MarkdownTable.ratio(spaced.get().writeP50Millis() / spaced.get().roundTripMillis()),
              MarkdownTable.number(p50 - spaced.get().writeP50Millis()))));
    });
  }

  private void converge() {
    List<ConvergeScale.Row> sizes = m.scale().converge();
    for (int entries : sizes.stream().filter(r -> r.restores() == 1).map(ConvergeScale.Row::entries).distinct()
        .toList()) {
      List<ConvergeScale.Row> sequential = sizes.stream()
          .filter(r -> r.entries() == entries && r.restores() == 1).toList();
      List<ConvergeScale.Row> parallel = sizes.stream()
          .filter(r -> r.entries() == entries && r.restores() != 1).toList();
      String size = String.format("%,d", entries);
      String target = "8. first converge of " + size + " entries, restores prepared in parallel: >= 4x faster than one at a time"
          + (sequential.size() > 1 ? " (medians of " + sequential.size() + " alternating runs each)" : "");
      if (parallel.isEmpty() || Stream.concat(sequential.stream(), parallel.stream()).anyMatch(r -> r.first().isEmpty())) {
        rows.add(new Row(target, "a pass did not finish within its bound", verdict(false)));
        continue;
      }
      double one = median(sequential.stream().mapToDouble(r -> r.first().get().seconds()).toArray());
      double many = median(parallel.stream().mapToDouble(r -> r.first().get().seconds()).toArray());
      String each = sequential.size() > 1 ? String.format(" (one at a time: %s s; default: %s s)",
          seconds(sequential), seconds(parallel)) : "";
      rows.add(new Row(target, String.format("%.2f vs %.2f s = %s", many, one, MarkdownTable.ratio(one / many)) + each,
          verdict(one >= 4 * many && parallel.stream().allMatch(r -> r.first().get().failed() == 0)))
          .causedBy(serialApply(parallel, many)));
    }
    for (ConvergeScale.Row row : sizes) {
      if (row.restores() == 1 || sizes.stream().anyMatch(r -> r.restores() == 1 && r.entries() == row.entries())) {
        continue;
      }
      String size = String.format("%,d", row.entries());
      if (row.first().isEmpty()) {
        rows.add(new Row("8. first converge of " + size + " entries finishes",
            ConvergeTables.notFinished(row.bound()), verdict(false)));
        continue;
      }
      ConvergeScale.Pass first = row.first().get();
      double floor = ConvergeTables.sequentialFloor(first, m.scale().convergeLatency());
      rows.add(new Row("8. first converge of " + size + " entries finishes (beside it: a sequential pass's latency floor)",
          String.format("%.2f s, floor %.1f s = %s; %d restored, %d failed", first.seconds(), floor,
              MarkdownTable.ratio(floor / first.seconds()), first.restored(), first.failed()),
          verdict(first.failed() == 0)));
    }
    List<ConvergeScale.Pass> noOps = sizes.stream().flatMap(r -> r.noOp().stream()).toList();
    if (sizes.size() >= 2) {
      boolean both = noOps.size() == sizes.size() && noOps.stream().allMatch(p -> p.localBytesRead().isPresent());
      String measured = both ? join(sizes, r -> String.format("%,d entries: %,d bytes, %.3f s", r.entries(),
          r.noOp().get().localBytesRead().getAsLong(), r.noOp().get().seconds())) : "not every no-op pass ran";
      long smallest = both ? noOps.get(0).localBytesRead().getAsLong() : 0;
      long largest = both ? noOps.get(noOps.size() - 1).localBytesRead().getAsLong() : 0;
      rows.add(new Row("8. a no-op converge's local reads independent of the entries (largest <= 2x smallest + 64 KiB)",
          measured, both ? verdict(largest <= 2 * smallest + 65536) : "**missed**"));
    }
  }

  /**
   * Returns why the parallel passes were not 4x faster: the forces of the pass's own thread, which
   * applies the restores one at a time holding the lock, against the workers'; from the pass whose
   * wall time is the median {@code seconds}.
   */
  private static String serialApply(List<ConvergeScale.Row> passes, double seconds) {
    Optional<ConvergeScale.Pass> median = passes.stream().flatMap(r -> r.first().stream())
        .min(java.util.Comparator.comparingDouble(p -> Math.abs(p.seconds() - seconds)));
    if (median.isEmpty() || median.get().forces().isEmpty() || median.get().restored() == 0) {
      return "forces not counted";
    }
    ConvergeScale.Pass pass = median.get();
    FileForces.Counted forces = pass.forces().get();
    double restored = pass.restored();
    String serial = forces.allSeconds() >= 0.8 * pass.seconds() ? " (as long as the pass itself: its threads' forces,"
        + " taken together, fill it)" : "";
    return String.format("forces to disk: %.1f files and directories a restore, %.2f s summed over the threads of a"
        + " %.2f s pass" + serial + ". The pass's own thread, which"
        + " applies the restores one at a time holding the lock (a journal, the staging, the swap, the commit, each"
        + " made durable before the next step), forced %.1f a restore (%.2f s); the workers that download and unpack,"
        + " %.1f a restore (the files and the tree they write)", forces.all() / restored, forces.allSeconds(),
        pass.seconds(), forces.onThread() / restored, forces.onThreadSeconds(), (forces.all() - forces.onThread())
            / restored);
  }

  private void startup() {
    m.startup().ifPresent(s -> {
      s.jvm(17).ifPresent(j -> rows.add(start("9. `entries list` on JDK 17 with AppCDS (the launcher's): <= 5x a "
          + "hello-world (wall, median)", j, 5)));
      s.jvm(25).ifPresent(j -> rows.add(start("9. `entries list` on JDK 25 with an AOT cache: <= 3x a hello-world "
          + "(wall, median)", j, 3)));
    });
  }

  private static Row start(String target, StartupSection.Jvm jvm, double most) {
    double ratio = jvm.target().wallMillis() / jvm.hello().wallMillis();
    Row row = new Row(target, MarkdownTable.ratio(ratio) + " (" + MarkdownTable.number(jvm.target().wallMillis())
        + " vs " + MarkdownTable.number(jvm.hello().wallMillis()) + " ms; " + jvm.target().label() + ")",
        verdict(ratio <= most));
    return jvm.cases().stream().filter(c -> c.label().contains("--version")).findFirst()
        .map(version -> row.causedBy(String.format("`--version`, which opens no datastore and reads no file, already"
            + " takes %s ms = %s the hello-world: the JVM with its archive mapped, the distribution's class path"
            + " opened and the command line modelled; `entries list` adds %s ms of its own work (the checkout, the"
            + " embedded datastore, the lockfile)", MarkdownTable.number(version.wallMillis()),
            MarkdownTable.ratio(version.wallMillis() / jvm.hello().wallMillis()),
            MarkdownTable.number(jvm.target().wallMillis() - version.wallMillis()))))
        .orElse(row);
  }

  private static <T> String join(List<T> items, Function<T, String> text) {
    return items.stream().map(text).collect(Collectors.joining("; "));
  }

  private static String verdict(boolean met) {
    return met ? "met" : "**missed**";
  }

  /** Returns each row's first-pass wall time, in seconds, in the order run. */
  private static String seconds(List<ConvergeScale.Row> rows) {
    return rows.stream().map(r -> String.format("%.2f", r.first().get().seconds())).collect(Collectors.joining(", "));
  }

  /** Returns the median of {@code values} (the mean of the middle two when their count is even). */
  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }
}
