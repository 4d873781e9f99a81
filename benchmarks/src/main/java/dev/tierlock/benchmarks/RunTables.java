package dev.tierlock.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Turns the runs on one store into the report's table and its two charts. */
final class RunTables {

  private RunTables() {}

  /** Returns the Markdown of {@code runs}: ceilings, charts (written into {@code charts}, linked as {@code link/...}), table. */
  static String section(StoreRuns runs, Path charts, String link, List<Integer> writers) {
    writeCharts(runs, charts, writers);
    StringBuilder out = new StringBuilder();
    out.append(String.format("Round trip (RTT) measured in this run: %.2f ms, so 1/(4 RTT) = %s commits/s and "
            + "1/RTT = %s commits/s. Each run: %s s measured after a warm-up, a fresh store, every writer its own "
            + "names.%n%n", runs.roundTripMillis(), MarkdownTable.number(runs.lockedCeiling()),
        MarkdownTable.number(runs.optimisticCeiling()), MarkdownTable.number(runs.window())));
    out.append("![throughput](").append(link).append('/').append(runs.slug()).append("-throughput.png)\n");
    out.append("![p99 latency](").append(link).append('/').append(runs.slug()).append("-p99.png)\n\n");
    out.append(table(runs));
    return out.toString();
  }

  /** Returns the table of {@code runs}, each throughput also as a ratio to the baseline protocol at the same writers. */
  static String table(StoreRuns runs) {
    MarkdownTable table = new MarkdownTable("protocol", "writers", "commits/s", "vs baseline", "p50 ms", "p99 ms",
        "per writer min / mean", "calls / commit", "errors (by code)", "lost / acknowledged");
    for (RunResult r : runs.results()) {
      double baseline = runs.find(Protocol.BASELINE, r.writers()).map(RunResult::commitsPerSecond).orElse(Double.NaN);
      table.row(r.protocol().label(), String.valueOf(r.writers()), MarkdownTable.number(r.commitsPerSecond()),
          MarkdownTable.ratio(r.commitsPerSecond() / baseline), MarkdownTable.number(r.p50Millis()),
          MarkdownTable.number(r.p99Millis()), r.minPerWriter() + " / " + MarkdownTable.number(r.meanPerWriter()),
          MarkdownTable.number(r.callsPerCommit()),
          errors(r.errors()) + (r.releasesRefused() > 0 ? "; lease releases refused " + r.releasesRefused() : "")
              + (r.hung() > 0 ? "; **" + r.hung() + " writers hung** (never returned)" : ""),
          r.lost() + " / " + r.acknowledged());
    }
    return table.render();
  }

  /** Returns {@code errors} as {@code code n, code n}, or {@code none}. */
  static String errors(Map<String, Integer> errors) {
    return errors.isEmpty() ? "none" : errors.entrySet().stream()
        .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
  }

  private static void writeCharts(StoreRuns runs, Path charts, List<Integer> writers) {
    List<LineChart.Series> throughput = new ArrayList<>();
    List<LineChart.Series> p99 = new ArrayList<>();
    for (Protocol protocol : Protocol.all()) {
      List<RunResult> line = runs.results().stream().filter(r -> r.protocol() == protocol).toList();
      if (line.isEmpty()) {
        continue;
      }
      throughput.add(new LineChart.Series(protocol.label(),
          line.stream().map(r -> new double[] {r.writers(), r.commitsPerSecond()}).toList()));
      p99.add(new LineChart.Series(protocol.label(),
          line.stream().map(r -> new double[] {r.writers(), r.p99Millis()}).toList()));
    }
    List<Integer> xs = writers.size() > 1 ? writers : List.of(1, 16);
    List<LineChart.Level> ceilings = new ArrayList<>(List.of(new LineChart.Level("1/RTT", runs.optimisticCeiling()),
        new LineChart.Level("1/(4 RTT)", runs.lockedCeiling())));
    runs.limit().ifPresent(ceilings::add);
    new LineChart(runs.label() + ": commits/s", "commits/s", xs).write(charts.resolve(runs.slug() + "-throughput.png"),
        throughput, ceilings);
    new LineChart(runs.label() + ": p99 commit latency", "p99 ms", xs).write(charts.resolve(runs.slug() + "-p99.png"),
        p99, List.of(new LineChart.Level("4 RTT", 4 * runs.roundTripMillis()),
            new LineChart.Level("1 RTT", runs.roundTripMillis())));
  }
}
