package dev.tierlock.cli;

import dev.tierlock.ArchiveCollector;
import dev.tierlock.Tierlock;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code tierlock gc}: collects the tier's extension archives by reachability ({@link
 * ArchiveCollector}); a dry run unless {@code --apply}.
 */
@Command(
    name = "gc",
    description = "Collects extension archives no lockfile version within the retention window pins and that are older"
        + " than it, judged on the datastore's clock. Lists what it would delete unless --apply is given. Takes no"
        + " lock: writers are never blocked, and an archive a writer pins meanwhile is kept or stored back.",
    mixinStandardHelpOptions = true)
final class GcCommand implements Callable<Integer> {

  @ParentCommand TierlockCli root;
  @Spec CommandSpec spec;

  @Option(names = "--apply", description = "Delete the collectable archives (default: only list them).")
  boolean apply;

  @Option(names = "--retention", paramLabel = "DURATION", description = "The retention window (7d, 48h, P7D)."
      + " Default: 7d.")
  String retention;

  @Option(names = "--json", description = "Print the result as one JSON object.")
  boolean json;

  @Override
  public Integer call() {
    Duration window = retention == null ? ArchiveCollector.DEFAULT_RETENTION
        : Inputs.duration("--retention", retention);
    try (Tierlock tierlock = root.open(apply ? TierlockCli.Access.WRITE : TierlockCli.Access.READ)) {
      ArchiveCollector.Collection result = ArchiveCollector.collect(tierlock, window, apply);
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        json(out, result);
      } else {
        out.print(text(result));
      }
      out.flush();
      PrintWriter err = spec.commandLine().getErr();
      result.warnings().forEach(w -> err.println("tierlock: warning: " + w));
      err.flush();
      return ExitCodes.OK;
    }
  }

  /** The human report: one line per archive that is or would be deleted, or was kept for a reason worth saying. */
  static String text(ArchiveCollector.Collection result) {
    StringBuilder text = new StringBuilder();
    for (ArchiveCollector.Judged j : result.archives()) {
      text.append(label(j.verdict())).append(' ').append(j.archive().value())
          .append(j.age().map(a -> " (age " + days(a) + ")").orElse("")).append('\n');
    }
    List<ArchiveCollector.Judged> gone = result.with(result.applied() ? ArchiveCollector.Verdict.DELETED
        : ArchiveCollector.Verdict.COLLECTABLE);
    long bytes = gone.stream().mapToLong(ArchiveCollector.Judged::size).sum();
    text.append(result.archives().size()).append(" archive(s); ").append(gone.size())
        .append(result.applied() ? " deleted (" : " collectable (").append(bytes).append(" bytes); retention ")
        .append(days(result.retention()))
        .append(result.storeTime().isEmpty() ? "; the datastore tells no modification times, so nothing is collected"
            : "")
        .append(result.applied() ? "" : "; dry run: --apply deletes").append('\n');
    return text.toString();
  }

  /**
   * Prints the JSON report: {@code applied}, {@code retention}, {@code storeTime}, {@code archives}
   * (each {@code archive}, {@code verdict}, {@code size}, {@code ageSeconds}) and {@code warnings}.
   */
  static void json(PrintWriter out, ArchiveCollector.Collection result) {
    JsonReport.print(out, "gc", g -> {
      g.writeBooleanField("applied", result.applied());
      g.writeStringField("retention", result.retention().toString());
      JsonReport.optional(g, "storeTime", result.storeTime());
      g.writeArrayFieldStart("archives");
      for (ArchiveCollector.Judged j : result.archives()) {
        g.writeStartObject();
        g.writeStringField("archive", j.archive().value());
        g.writeStringField("verdict", label(j.verdict()));
        g.writeNumberField("size", j.size());
        if (j.age().isPresent()) {
          g.writeNumberField("ageSeconds", j.age().get().toSeconds());
        } else {
          g.writeNullField("ageSeconds");
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      JsonReport.strings(g, "warnings", result.warnings());
    });
  }

  private static String label(ArchiveCollector.Verdict verdict) {
    return verdict.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  private static String days(Duration d) {
    return d.toDays() >= 1 ? d.toDays() + "d" + (d.toHoursPart() == 0 ? "" : d.toHoursPart() + "h")
        : d.toHours() >= 1 ? d.toHours() + "h" : d.toMinutes() + "m";
  }
}
