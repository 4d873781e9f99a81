package dev.tierlock.benchmarks;

import dev.tierlock.CommitMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** The text of sections 7 (calls per commit and fairness at 16 writers), 8 (durable work) and 9 (pinned installs). */
final class ScaleTables {

  /** The writer count of the per-store summaries. */
  static final int WRITERS = 16;

  private ScaleTables() {}

  /** Returns every store's runs that were made, in report order. */
  static List<StoreRuns> stores(Measurements m) {
    return Stream.of(m.fake(), m.s3(), m.gcs(), m.fs()).flatMap(Optional::stream).toList();
  }

  /** Returns section 7, or nothing when no store was measured. */
  static String contention(Measurements m) {
    List<StoreRuns> stores = stores(m);
    if (stores.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder("## 7. Calls per commit and fairness at ").append(WRITERS)
        .append(" writers\n\n")
        .append("From the runs above: every datastore call the writers made over a run (warm-up and tail included, ")
        .append("self-checks not), divided by the commits acknowledged, one column per commit mode (separate ")
        .append("checkouts) and the baseline protocol.\n\n");
    List<Protocol> columns = Protocol.modesThen(Protocol.BASELINE);
    List<String> header = new ArrayList<>(List.of("store"));
    columns.forEach(p -> header.add(p == Protocol.BASELINE ? "baseline protocol" : Protocol.modeLabel(p.mode())));
    MarkdownTable calls = new MarkdownTable(header.toArray(String[]::new));
    for (StoreRuns store : stores) {
      List<String> row = new ArrayList<>(List.of(store.label()));
      columns.forEach(p -> row.add(store.find(p, WRITERS).map(r -> MarkdownTable.number(r.callsPerCommit()))
          .orElse("not run")));
      calls.row(row.toArray(String[]::new));
    }
    out.append(calls.render()).append('\n');
    out.append("Fairness: the fewest commits one writer had in the window against the mean, and the tail of the ")
        .append("latencies (targets: every writer at least a quarter of the mean; p99 at most 10x p50).\n\n");
    MarkdownTable fair = new MarkdownTable("store", "mode", "per writer min / mean", "min / mean", "p50 ms", "p99 ms",
        "p99 / p50");
    for (StoreRuns store : stores) {
      for (CommitMode mode : Protocol.MODES) {
        store.find(Protocol.separate(mode), WRITERS).ifPresent(r -> fair.row(store.label(), Protocol.modeLabel(mode),
            r.minPerWriter() + " / " + MarkdownTable.number(r.meanPerWriter()),
            MarkdownTable.ratio(r.minPerWriter() / r.meanPerWriter()), MarkdownTable.number(r.p50Millis()),
            MarkdownTable.number(r.p99Millis()), MarkdownTable.ratio(r.tailRatio())));
      }
    }
    return out.append(fair.render()).append('\n').toString();
  }

  /** Returns section 8. */
  static String durable(DurableWork.Result result) {
    StringBuilder out = new StringBuilder("## 8. Durable local work of a commit: the filesystem datastore\n\n")
        .append("One writer, ").append(result.commits()).append(" warm puts per protocol. System calls: ")
        .append(result.strace()).append(" around a child JVM making the puts, counted between two marks the child ")
        .append("leaves around them (its start, self-check, the lockfile's history and one warm-up put are outside ")
        .append("the marks), divided by the puts; failed calls count too. Lease hold: the median time the lease object (`.datastore.lock`) lived, from the return of the ")
        .append("write that created it to the delete that removed it, over the same puts in this JVM. The baseline ")
        .append("protocol runs over this repository's filesystem datastore too, so its counts include that ")
        .append("datastore's own work (its claims and metadata files), not the original tool's own figures.\n\n");
    MarkdownTable table = new MarkdownTable("protocol", "fsyncs / commit", "renames / commit", "unlinks / commit",
        "lease hold ms");
    for (DurableWork.Row r : result.rows()) {
      table.row(r.protocol().label(), number(r.fsyncs()), number(r.renames()), number(r.unlinks()),
          Double.isNaN(r.leaseHoldMillis()) ? "no lease taken" : MarkdownTable.number(r.leaseHoldMillis()));
    }
    return out.append(table.render()).append('\n').toString();
  }

  private static String number(Optional<Double> value) {
    return value.map(MarkdownTable::number).orElse("not counted");
  }

  /** Returns section 9. */
  static String pinned(List<PinnedInstalls.Row> rows) {
    StringBuilder out = new StringBuilder("## 9. Installs that pin an archive\n\n")
        .append("A warm checkout (past its self-check and one install) installs through the public `Installer` ")
        .append("from the testkit's `FakeRegistry`, on a `FakeRemote` without latency; every datastore call of the ")
        .append("install counted (the archive's upload included), per commit mode.\n\n");
    MarkdownTable table = new MarkdownTable("mode", "install", "calls (by operation)", "archive uploads",
        "calls beside the uploads");
    for (PinnedInstalls.Row r : rows) {
      table.row(Protocol.modeLabel(r.mode()), r.install(), CallCounts.cell(r.calls()),
          String.valueOf(r.archiveUploads()), String.valueOf(r.beside()));
    }
    return out.append(table.render()).append('\n').toString();
  }
}
