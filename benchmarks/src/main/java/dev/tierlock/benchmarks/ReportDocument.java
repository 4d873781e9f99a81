package dev.tierlock.benchmarks;

import dev.tierlock.benchmarks.CallCounts.Case;
import dev.tierlock.benchmarks.CallCounts.Count;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Writes the report, {@code README.md} with its charts beside it in {@code report/}. */
final class ReportDocument {

  static final String COMMAND =
      "mvn -B -ntp -pl benchmarks -am package -Dmaven.test.skip=true -Dmaven.javadoc.skip=true -Dmaven.source.skip=true"
          + " && java -jar benchmarks/target/benchmarks.jar";

  /** The 1-minute load below which the machine counts as quiet at the start. */
  private static final double QUIET = 0.5;

  private final Measurements m;
  private final Path directory;
  private final StringBuilder out = new StringBuilder();

  ReportDocument(Measurements m, Path directory) {
    this.m = m;
    this.directory = directory;
  }

  /** Writes the report and its charts; returns the report's file. */
  Path write() {
    Path charts = directory.resolve("report");
    try {
      Files.createDirectories(charts);
      header();
      targets();
      calls();
      m.fake().ifPresent(fake -> contention(fake, charts));
      cloud(charts);
      m.fs().ifPresent(fs -> {
        out.append("## 4. The filesystem datastore\n\n");
        out.append(RunTables.section(fs, charts, "report", m.plan().writers())).append('\n');
      });
      codec();
      m.startup().ifPresent(startup -> out.append(StartupSection.render(startup)));
      out.append(ScaleTables.contention(m));
      m.scale().durable().ifPresent(d -> out.append(ScaleTables.durable(d)));
      if (!m.scale().pinned().isEmpty()) {
        out.append(ScaleTables.pinned(m.scale().pinned()));
      }
      if (!m.scale().converge().isEmpty()) {
        out.append(ConvergeTables.render(m.scale().converge(), m.scale().convergeLatency()));
      }
      Notes.append(out);
      Path readme = directory.resolve("README.md");
      Files.writeString(readme, out.toString(), StandardCharsets.UTF_8);
      return readme;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the report into " + directory, e);
    }
  }

  private void header() {
    Machine machine = m.machine();
    out.append("# Tierlock benchmarks\n\n");
    out.append("This file is the report, written by the benchmark itself (edit `src/main/java`, not this file). ")
        .append("Reproduce it from a clean clone with Java 17+ and Maven 3.8+ (nothing else), from the repository root:\n\n")
        .append("```sh\n").append(COMMAND).append("\n```\n\n")
        .append("It builds the module and what it needs, runs every part below, prints its progress, and rewrites this ")
        .append("file and `report/*.png` (`--quick` writes a short run into `target/quick-report/` instead). ")
        .append("Ratios are against baselines measured in the same run, since the machine may be shared and noisy.\n\n");
    out.append(new MarkdownTable("run", "")
        .row("date", machine.date())
        .row("machine", machine.cores() + " cores, " + machine.cpu())
        .row("JDK", machine.jdk())
        .row("OS", machine.os())
        .row("load average (1, 5, 15 min)", "at the start " + machine.load() + "; at the end " + m.endLoad()
            + " (on " + machine.cores() + " cores: above " + machine.cores() + ", other work competed for them)")
        .row("plan", m.plan().name() + String.format(" (the benchmark took %d min %02d s)", m.seconds() / 60, m.seconds() % 60))
        .render()).append('\n');
  }

  private void targets() {
    out.append("## Targets\n\n");
    out.append(quiet()).append("\n\n");
    out.append("\"Performance at the floor\" (its \"What to build\", by number). Beside each target missed, its cause,"
        + " from what this run measured (calls by the object they name, forces by thread, the other cases of a"
        + " section):\n\n");
    out.append(targetTable(FloorTargets.of(m)));
    out.append("Earlier targets, and the checks every run makes:\n\n");
    out.append(targetTable(Targets.of(m)));
  }

  /** Returns the table of {@code rows}, each missed one with its cause. */
  private static String targetTable(java.util.List<Targets.Row> rows) {
    MarkdownTable table = new MarkdownTable("target", "measured in this run", "verdict", "cause of a miss");
    rows.forEach(r -> table.row(r.target(), r.measured(), r.verdict(), r.cause()));
    return table.render() + "\n";
  }

  /** Returns the line that says whether the machine was quiet: its 1-minute load at the start, below 0.5. */
  private String quiet() {
    double start = firstLoad(m.machine().load());
    boolean quiet = start < QUIET;
    return "Load average (1, 5, 15 min) at the start " + m.machine().load() + ", at the end " + m.endLoad()
        + " (the end includes this benchmark's own work). " + (quiet
        ? "**The machine was quiet** at the start (1-minute load below " + QUIET + " on " + m.machine().cores()
            + " cores)."
        : "**The machine was not quiet** at the start (1-minute load " + start + ", at or above " + QUIET + " on "
            + m.machine().cores() + " cores): other work competed for the cores; the ratios are same-run, the "
            + "absolute figures are not a quiet machine's.");
  }

  private static double firstLoad(String load) {
    try {
      return Double.parseDouble(load.split(",")[0].trim());
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }

  private void calls() {
    if (m.calls().isEmpty()) {
      return;
    }
    out.append("## 1. Datastore calls per committed change\n\n")
        .append("Counted with the testkit's `CountingDatastore` on a `FakeRemote` without latency; one change each ")
        .append("(a put, or a remove), the self-check apart. Each cell: calls in all (by operation).\n\n");
    MarkdownTable table = new MarkdownTable(header(CallCounts.COLUMNS));
    for (Map.Entry<Case, List<Count>> row : m.calls().entrySet()) {
      String[] cells = new String[CallCounts.COLUMNS.size() + 1];
      cells[0] = row.getKey().label();
      for (int i = 0; i < row.getValue().size(); i++) {
        cells[i + 1] = cell(row.getValue().get(i));
      }
      table.row(cells);
    }
    out.append(table.render()).append('\n');
  }

  /** Returns the header of the calls table: the case, then the columns. */
  private static String[] header(List<String> columns) {
    String[] header = new String[columns.size() + 1];
    header[0] = "case";
    for (int i = 0; i < columns.size(); i++) {
      header[i + 1] = columns.get(i);
    }
    return header;
  }

  private static String cell(Count count) {
    return CallCounts.cell(count);
  }

  private void contention(StoreRuns fake, Path charts) {
    out.append("## 2. Contended throughput: ").append(fake.label()).append("\n\n")
        .append("Writers are separate checkouts (each its own directory and `Tierlock`), or threads on one checkout; ")
        .append("the latency is `Faults.latency` with a real sleeper. The baseline protocol is the original tool's ")
        .append("(create-only lock object, GET, unconditional PUT, delete the lock, with its lock waits: 1 s, doubling ")
        .append("to 8 s, random); the no-lock protocol is GET and unconditional PUT. A lost change is an acknowledged ")
        .append("put whose value is not in the final lockfile.\n\n");
    out.append(RunTables.section(fake, charts, "report", m.plan().writers())).append('\n');
    if (!m.longRuns().isEmpty()) {
      double seconds = m.longRuns().get(0).seconds();
      out.append("**Long runs**, 16 separate checkouts, each mode, ").append(MarkdownTable.number(seconds))
          .append(" s (what fairness is judged on: a short window also holds the start, where every writer's first"
              + " commits race at once):\n\n")
          .append(RunTables.table(new StoreRuns(fake.label(), fake.slug(), fake.roundTripMillis(), seconds,
              m.longRuns(), fake.limit())))
          .append('\n');
    }
  }

  private void cloud(Path charts) {
    if (m.s3().isEmpty() && m.gcs().isEmpty()) {
      return;
    }
    out.append("## 3. Real S3 and GCS servers on 127.0.0.1\n\n")
        .append("The same, shorter. S3: the S3 module's test server (S3Proxy in this JVM, in-memory, conditional writes ")
        .append("made atomic per key). GCS: the testkit's fake server driven by the real google-cloud-storage client, ")
        .append("with GCS's limit of one write per second to one object switched on (429 past it; the client retries ")
        .append("from 50 ms, doubling to 1 s). The fake's limit is strict (no burst), where GCS's is approximate: a ")
        .append("worst case. Here one checkout's threads are also measured in optimistic mode with group commit.\n\n");
    m.s3().ifPresent(s3 -> out.append("### ").append(s3.label()).append("\n\n")
        .append(RunTables.section(s3, charts, "report", m.plan().cloudWriters())).append('\n'));
    m.gcs().ifPresent(gcs -> out.append("### ").append(gcs.label()).append("\n\n")
        .append("The limit is on while a run is measured; the checkouts' self-checks at setup run without it, ")
        .append("because a self-check under it ").append(m.gcsSelfCheck().orElse("was not tried"))
        .append(".\n\n")
        .append(RunTables.section(gcs, charts, "report", m.plan().cloudWriters())).append('\n')
        .append(spaced(gcs)));
  }

  /** Returns the table of the spaced GCS commits, if they were measured. */
  private String spaced(StoreRuns gcs) {
    if (m.scale().gcsSpaced().isEmpty()) {
      return "";
    }
    MarkdownTable table = new MarkdownTable("mode", "p50 ms", "RTT ms (just before)", "vs RTT", "calls / commit");
    for (SpacedCommits.Row r : m.scale().gcsSpaced()) {
      table.row(Protocol.modeLabel(r.mode()), MarkdownTable.number(r.p50Millis()),
          MarkdownTable.number(r.roundTripMillis()), MarkdownTable.ratio(r.p50Millis() / r.roundTripMillis()),
          MarkdownTable.number(r.callsPerCommit()));
    }
    return "**Uncontended commits, spaced past the write limit**: one warm checkout per mode, " + m.plan().spacedCommits()
        + " puts " + SpacedCommits.GAP.toMillis() + " ms apart (the limit on), so the lockfile was not written in the "
        + "last second before each:\n\n" + table.render() + "\n";
  }

  private void codec() {
    if (m.codec().isEmpty() && m.puts().isEmpty() && m.local().isEmpty()) {
      return;
    }
    out.append("## 5. Codec and one put (JMH)\n\n");
    out.append(CodecTables.render(m));
  }
}
