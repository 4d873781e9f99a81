package dev.tierlock.cli;

import dev.tierlock.cli.DoctorFinding.Level;
import java.io.PrintWriter;
import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * The findings of one {@code tierlock doctor} run, in the order they are printed, and their
 * summary: the verdict ({@code healthy}, {@code warnings} or {@code failures}) and the exit code,
 * the first failure's.
 */
final class DoctorReport {

  private final URI datastore;
  private final List<DoctorFinding> findings;
  private final int exitCode;
  private final long fails;
  private final long warns;
  private final long skips;
  private final long oks;
  private final String verdict;

  DoctorReport(URI datastore, List<DoctorFinding> findings) {
    this.datastore = datastore;
    this.findings = List.copyOf(findings);
    this.exitCode = findings.stream().filter(f -> f.level() == Level.FAIL).mapToInt(DoctorFinding::exitCode)
        .findFirst().orElse(ExitCodes.OK);
    this.fails = count(Level.FAIL);
    this.warns = count(Level.WARN);
    this.skips = count(Level.SKIP);
    this.oks = count(Level.OK);
    this.verdict = fails > 0 ? "failures" : warns > 0 ? "warnings" : "healthy";
  }

  private long count(Level level) {
    return findings.stream().filter(f -> f.level() == level).count();
  }

  /** Returns the exit code: the first failing check's, or {@link ExitCodes#OK} when none fails. */
  int exitCode() {
    return exitCode;
  }

  /** Prints one line per finding and a summary line. */
  void printText(PrintWriter out) {
    int width = findings.stream().mapToInt(f -> f.check().length()).max().orElse(0);
    for (DoctorFinding f : findings) {
      out.println(String.format(Locale.ROOT, "%-4s  %-" + width + "s  %s", f.level().label(), f.check(), f.detail()
          + (f.code() != null && f.level() != Level.OK ? " [" + f.code() + "]" : "")
          + (f.hint() != null ? "; " + f.hint() : "")));
    }
    out.println("doctor: " + switch (verdict) {
      case "healthy" -> "healthy: every check ok" + (skips > 0 ? " (" + skips + " skipped)" : "");
      case "warnings" -> "warnings: " + warns + " warning(s), no failure" + (skips > 0 ? ", " + skips + " skipped" : "")
          + " (exit 0)";
      default -> "failures: " + fails + " failing check(s), " + warns + " warning(s)"
          + (skips > 0 ? ", " + skips + " skipped" : "") + " (exit " + exitCode + ", the first failure's)";
    });
  }

  /** Prints the report as one JSON object: datastore, checks, summary, verdict and exitCode. */
  void printJson(PrintWriter out) {
    JsonReport.print(out, "doctor", g -> {
      g.writeStringField("datastore", datastore.toString());
      g.writeArrayFieldStart("checks");
      for (DoctorFinding f : findings) {
        g.writeStartObject();
        g.writeStringField("check", f.check());
        g.writeStringField("status", f.level().label());
        g.writeStringField("detail", f.detail());
        g.writeStringField("hint", f.hint());
        g.writeStringField("code", f.code());
        g.writeNumberField("exitCode", f.exitCode());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeObjectFieldStart("summary");
      g.writeNumberField("ok", oks);
      g.writeNumberField("warn", warns);
      g.writeNumberField("fail", fails);
      g.writeNumberField("skip", skips);
      g.writeEndObject();
      g.writeStringField("verdict", verdict);
      g.writeNumberField("exitCode", exitCode);
    });
  }
}
