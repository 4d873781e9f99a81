package dev.tierlock.benchmarks;

import dev.tierlock.benchmarks.ConvergeScale.Pass;
import dev.tierlock.benchmarks.ConvergeScale.Row;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Section 10's text: convergence at each size. */
final class ConvergeTables {

  private ConvergeTables() {}

  /** Returns the one-line progress summary of {@code row}. */
  static String summary(Row row) {
    return row.entries() + " entries" + (row.restores() == 1 ? " (one restore at a time)" : "") + ": first pass " + row.first().map(ConvergeTables::pass)
        .orElse(notFinished(row.bound())) + "; no-op pass " + row.noOp().map(ConvergeTables::pass).orElse("n/a");
  }

  /** Returns the verdict text of a pass that did not return within {@code bound}. */
  static String notFinished(Duration bound) {
    return "did not finish in " + bound.toSeconds() + " s";
  }

  private static String pass(Pass p) {
    return String.format("%.2f s, %d calls, %d restored, %d failed, peak %d archive reads at once, %s fsyncs",
        p.seconds(), p.calls().total(), p.restored(), p.failed(), p.peakReads(),
        p.fsyncs().isPresent() ? String.valueOf(p.fsyncs().getAsLong()) : "uncounted");
  }

  /** Returns a sequential pass's lower bound for {@code pass}: one latency per archive read, in seconds. */
  static double sequentialFloor(Pass pass, Duration latency) {
    return pass.reads() * latency.toMillis() / 1000.0;
  }

  /** Returns the section. */
  static String render(List<Row> rows, Duration latency) {
    StringBuilder out = new StringBuilder("## 10. Convergence at scale\n\n")
        .append("The public `Converger` API on a `FakeRemote` with ").append(latency.toMillis())
        .append(" ms added to every call: a lockfile of N small entries (a version and a checksum each, no other ")
        .append("field) and every entry's archive (a manifest and one file) planted in the tier; a fresh checkout ")
        .append("(`TempDirLayout`) converges (the first pass restores every entry), then converges again (the ")
        .append("no-op pass). Each pass runs on a thread of its own; one that has not returned within its bound is ")
        .append("interrupted and reported as not finished. The sequential reference is the same pass told to prepare ")
        .append("one restore at a time (`parallelRestores(1)`), on the same size; every other pass prepares as many ")
        .append("as the converger's default for the machine and the store. Where a size has more than one run of ")
        .append("each, they alternate, each on a fresh checkout, and the target compares their medians (a slow ")
        .append("spell of this machine's disk then falls on both kinds). A sequential pass also takes at least ")
        .append("one latency per archive read: that floor (local work not counted) is shown beside each first pass. ")
        .append("Local bytes read: the process's ")
        .append("`rchar` over the pass (every thread, the fake remote's own reads included). Fsyncs: every ")
        .append("`FileChannel.force` of a file or a directory in the process over the pass (the Flight Recorder's ")
        .append("`jdk.FileForce` event, no threshold), per entry restored.\n\n");
    MarkdownTable table = new MarkdownTable("entries", "pass", "wall (s)", "calls (by operation)",
        "restored / failed", "archive reads at once (peak)", "process CPU (s)", "vs sequential floor", "local bytes read", "fsyncs / restore");
    for (Row row : rows) {
      String how = row.restores() == 1 ? " (one restore at a time)" : "";
      table.row(cells(row.entries(), "first" + how, row.first(), row.bound(), latency));
      table.row(cells(row.entries(), "no-op" + how, row.noOp(), row.bound(), latency));
    }
    return out.append(table.render()).append('\n').toString();
  }

  private static String[] cells(int entries, String label, Optional<Pass> pass, Duration bound, Duration latency) {
    String size = String.format("%,d", entries);
    if (pass.isEmpty()) {
      String why = label.startsWith("first") ? "**" + notFinished(bound) + "**" : "not run (the first pass did not finish)";
      return new String[] {size, label, why, "", "", "", "", "", "", ""};
    }
    Pass p = pass.get();
    double floor = sequentialFloor(p, latency);
    return new String[] {size, label, String.format("%.2f", p.seconds()), CallCounts.cell(p.calls()),
        p.restored() + " / " + p.failed(), String.valueOf(p.peakReads()), String.format("%.1f", p.cpuSeconds()),
        label.startsWith("first") ? MarkdownTable.ratio(floor / p.seconds()) + " (floor " + MarkdownTable.number(floor) + " s)"
            : "", p.localBytesRead().isPresent() ? String.format("%,d", p.localBytesRead().getAsLong()) : "n/a",
        p.fsyncs().isEmpty() ? "not counted" : p.restored() == 0 ? String.format("%d in all", p.fsyncs().getAsLong())
            : String.format("%.1f", p.fsyncs().getAsLong() / (double) p.restored())};
  }
}
