package dev.tierlock.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import dev.tierlock.install.ConvergePoller;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.ConvergeStatus;
import dev.tierlock.install.Converger;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code tierlock converge}, {@code status} and {@code watch}: convergence of the checkout's
 * {@code extensions/} directory (the layout {@code install} uses) to the shared lockfile, from the
 * tier's archives alone; no registry, and neither the lockfile nor the tier is written.
 */
final class ConvergeCommands {

  private ConvergeCommands() {}

  /** Returns the converger of the checkout's {@code extensions/}, on the command line's clock. */
  static Converger converger(TierlockCli root, Tierlock tierlock) {
    return converger(root, tierlock, Converger.Edits.KEEP);
  }

  /** Returns the converger of {@code tierlock}'s checkout, doing {@code edits} with local edits. */
  static Converger converger(TierlockCli root, Tierlock tierlock, Converger.Edits edits) {
    return Converger.builder(tierlock, ExtensionsCommands.layout(tierlock)).clock(root.clock()).edits(edits).build();
  }

  /**
   * Maps a pass to the exit code of {@code converge}: an unrestorable entry waits for a person (1),
   * even when others are pending; a pending one is retried by running it again (75). An entry that
   * pins no archive (no checksum) is not a failure of the pass: the tier was never meant to restore
   * it, and the text says so in a note.
   */
  static int exitCode(ConvergeReport report) {
    return switch (report.outcome()) {
      case BUSY -> ExitCodes.TEMPORARY;
      case UNAVAILABLE -> ExitCodes.UNAVAILABLE;
      case LOCKFILE_UNREADABLE, BLOCKED -> ExitCodes.FAILURE;
      case NO_LOCKFILE -> ExitCodes.OK;
      case CONVERGED, UNCHANGED -> report.unrestorable().stream().anyMatch(u -> !pinsNoArchive(u))
          ? ExitCodes.FAILURE : !report.pending().isEmpty() ? ExitCodes.TEMPORARY : ExitCodes.OK;
    };
  }

  /** Whether {@code u} is unrestorable only because its entry pins no archive. */
  static boolean pinsNoArchive(ConvergeReport.Unrestorable u) {
    return u.reason() == ConvergeReport.Unrestorable.Reason.UNPINNED;
  }

  /** {@code tierlock converge [--json] [--full]}. */
  @Command(name = "converge", mixinStandardHelpOptions = true,
      description = {"Restores extensions/ to what the shared lockfile pins, from the tier alone.",
        "No registry is called, and neither the lockfile nor the tier is written. Missing or outdated extensions are"
            + " restored from their archives; ones this checkout had verified that the lockfile no longer has are"
            + " removed; files edited locally are kept, with a warning: at the pinned version in place, and before a"
            + " restore replaces them as a copy under .swamp/kept-edits/ (--force replaces them). A restore that fails for"
            + " a passing reason is"
            + " pending (tried again from 1 minute, doubling up to 1 hour); one that cannot succeed is unrestorable"
            + " until its entry changes or --full is asked for. Prints one line per restored, removed, pending and"
            + " unrestorable extension, the warnings, then a summary with the requests and bytes spent."},
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {
        "0:converged or unchanged, nothing pending or unrestorable; or no shared lockfile yet",
        "1:an entry is unrestorable (see its reason), the shared lockfile does not parse, or this checkout's"
            + " pending-change record cannot be read (see pending show)",
        "2:bad input or usage, or no datastore at the given place",
        "69:the shared lockfile could not be read (datastore unavailable or refused)",
        "75:busy (an install or convergence of this checkout holds its lock), or an entry is pending: run it again"
      })
  static final class Converge implements Callable<Integer> {
    @ParentCommand TierlockCli root;
    @Spec CommandSpec spec;

    @Option(names = "--json", description = "Print the report as JSON.")
    boolean json;

    @Option(names = "--full", description = "Check every entry's files whatever the lockfile's version says, and try"
        + " unrestorable entries again.")
    boolean full;

    @Option(names = "--force", description = "Replace files edited locally with what the lockfile pins, keeping no"
        + " copy, and remove edited extensions the lockfile no longer has.")
    boolean force;

    @Override
    public Integer call() {
      try (Tierlock tierlock = root.open(TierlockCli.Access.READ)) {
        Converger converger = converger(root, tierlock, force ? Converger.Edits.REPLACE : Converger.Edits.KEEP);
        ConvergeReport report = full ? converger.convergeFully() : converger.converge();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
          JsonReport.print(out, "converge", g -> report(g, report));
        } else {
          text(out, report);
        }
        out.flush();
        return exitCode(report);
      }
    }

    private static void text(PrintWriter out, ConvergeReport r) {
      r.restored().forEach(n -> out.println(n + "\trestored"));
      r.removed().forEach(n -> out.println(n + "\tremoved"));
      r.pending().forEach(p -> out.println(p.name() + "\tpending\tnext attempt " + p.nextAttempt() + " (attempt "
          + p.attempts() + ": " + p.reason() + ")"));
      r.unrestorable().forEach(u -> out.println(pinsNoArchive(u)
          ? u.name() + "\tskipped\tnote: it pins no archive (no checksum), so the tier cannot restore it; 'tierlock"
              + " install " + u.name() + " --registry DIR' installs it"
          : u.name() + "\tunrestorable\t" + words(u.reason()) + ": " + u.detail()));
      r.warnings().forEach(w -> out.println("warning: " + w));
      out.printf("(%s: %d restored, %d removed, %d verified, %d skipped, %d pending, %d unrestorable; %d requests,"
          + " %d bytes)%n", words(r.outcome()), r.restored().size(), r.removed().size(), r.verified().size(),
          r.skipped().size(), r.pending().size(), r.unrestorable().size(), r.requests(), r.bytes());
    }
  }

  /** {@code tierlock status [--json] [--no-headers]}. */
  @Command(name = "status", mixinStandardHelpOptions = true,
      description = {"Lists where each extension of extensions/ stands against the shared lockfile.",
        "A table, one row per extension: NAME, PINNED (the version the shared lockfile pins), INSTALLED, STATE and"
            + " DETAIL; the state is verified, unverified, edited, out of date, pending (a restore, with its next"
            + " attempt), unrestorable (with why), not pinned, or pending publish: a change of this checkout saved"
            + " locally and not yet known to be published (PINNED is then what the shared lockfile has; see"
            + " 'tierlock pending show'). Reads the lockfile; takes no lock and writes nothing."})
  static final class Status implements Callable<Integer> {
    @ParentCommand TierlockCli root;
    @Spec CommandSpec spec;
    @Mixin Table.Options table;

    @Option(names = "--json", description = "Print the statuses as JSON.")
    boolean json;

    @Override
    public Integer call() {
      try (Tierlock tierlock = root.open(TierlockCli.Access.READ)) {
        List<ConvergeStatus> all = converger(root, tierlock).status();
        List<StatusRow> rows = StatusRow.of(all, tierlock);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
          JsonReport.print(out, "status", g -> {
            g.writeArrayFieldStart("extensions");
            for (StatusRow row : rows) {
              row.json(g);
            }
            g.writeEndArray();
          });
        } else {
          Table text = new Table(Table.EXTENSIONS);
          rows.forEach(row -> text.row(row.cells()));
          text.print(out, table, "(nothing installed, no entries)");
        }
        out.flush();
        return ExitCodes.OK;
      }
    }
  }

  /** {@code tierlock watch [--interval DURATION]}. */
  @Command(name = "watch", mixinStandardHelpOptions = true,
      description = {"Keeps extensions/ converged, in the foreground, until interrupted (Ctrl-C).",
        "One pass now, then one conditional read of the shared lockfile per interval (not-modified costs no"
            + " download), and a pass when it changed. Prints one line per change: when, what was restored, what"
            + " removed, and how many extensions are left pending or unrestorable. Warnings go to stderr."})
  static final class Watch implements Callable<Integer> {
    @ParentCommand TierlockCli root;
    @Spec CommandSpec spec;

    @Option(names = "--interval", paramLabel = "DURATION",
        description = "The wait between polls (30s, 2m, PT90S); at least 1s. Default: 30s.")
    String interval = "30s";

    /** Polls this many times on the calling thread, without waiting between polls, then stops (tests). */
    @Option(names = "--polls", paramLabel = "N", hidden = true)
    @Nullable Integer polls;

    /** Runs between two of the {@code --polls} (tests change the lockfile there). */
    Runnable betweenPolls = () -> { };

    @Override
    public Integer call() throws InterruptedException {
      PrintWriter out = spec.commandLine().getOut();
      ConvergePoller.Options options = ConvergePoller.Options.builder(report -> change(out, root.clock(), report))
          .interval(Inputs.duration("--interval", interval)).build();
      if (polls != null && polls < 1) {
        throw new IllegalArgumentException("Cannot poll " + polls + " times: at least once");
      }
      CountDownLatch finished = new CountDownLatch(1);
      try (Tierlock tierlock = root.open(TierlockCli.Access.READ)) {
        Converger converger = converger(root, tierlock);
        // the boot pass: what it swaps is said too, and the poller's baseline is what it leaves
        ConvergeReport boot = converger.converge();
        if (boot.changedFiles()) {
          change(out, root.clock(), boot);
        }
        try (ConvergePoller poller = converger.poller(options)) {
          if (polls != null) {
            for (int i = 0; i < polls; i++) {
              if (i > 0) {
                betweenPolls.run();
              }
              poller.poll();
            }
          } else {
            untilInterrupted(poller, tierlock, options.interval(), finished);
          }
        }
      } finally {
        finished.countDown();
      }
      return ExitCodes.OK;
    }

    private void untilInterrupted(ConvergePoller poller, Tierlock tierlock, Duration every, CountDownLatch finished)
        throws InterruptedException {
      CountDownLatch stopped = new CountDownLatch(1);
      Thread hook = new Thread(() -> {
        poller.close();
        stopped.countDown();
        try {
          // let the command close Tierlock and flush before the JVM halts
          finished.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "tierlock-watch-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      // Ctrl-C is how a watch ends, no interruption of work: it says nothing of one
      Interruption.finished();
      PrintWriter err = spec.commandLine().getErr();
      err.println("tierlock: watching " + tierlock.checkoutDirectory().resolve(ExtensionsCommands.EXTENSIONS) + " every "
          + every.toString().substring(2).toLowerCase(Locale.ROOT) + " (Ctrl-C stops)");
      err.flush();
      poller.start();
      try {
        stopped.await();
      } finally {
        if (stopped.getCount() > 0) {
          // interrupted from within the process, not by a shutdown: the hook is not needed any more
          try {
            Runtime.getRuntime().removeShutdownHook(hook);
          } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
          }
        }
      }
    }
  }

  /** Prints one line for a change: when, what was restored, what removed, and what is left to do. */
  static void change(PrintWriter out, Clock clock, ConvergeReport r) {
    StringBuilder line = new StringBuilder().append(clock.instant())
        .append("\trestored ").append(names(r.restored())).append("\tremoved ").append(names(r.removed()));
    if (!r.pending().isEmpty()) {
      line.append('\t').append(r.pending().size()).append(" pending");
    }
    if (!r.unrestorable().isEmpty()) {
      line.append('\t').append(r.unrestorable().size()).append(" unrestorable");
    }
    out.println(line);
    out.flush();
  }

  private static String names(List<ExtensionName> names) {
    return names.isEmpty() ? "-" : names.stream().map(ExtensionName::toString).collect(Collectors.joining(","));
  }

  private static String words(Enum<?> value) {
    return JsonReport.words(value);
  }

  private static void report(JsonGenerator g, ConvergeReport r) throws IOException {
    g.writeStringField("outcome", words(r.outcome()));
    JsonReport.strings(g, "restored", r.restored());
    JsonReport.strings(g, "removed", r.removed());
    JsonReport.strings(g, "verified", r.verified());
    JsonReport.strings(g, "skipped", r.skipped());
    g.writeArrayFieldStart("pending");
    for (ConvergeReport.Pending p : r.pending()) {
      g.writeStartObject();
      g.writeStringField("name", p.name().toString());
      g.writeNumberField("attempts", p.attempts());
      g.writeStringField("nextAttempt", p.nextAttempt().toString());
      g.writeStringField("reason", p.reason());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeArrayFieldStart("unrestorable");
    for (ConvergeReport.Unrestorable u : r.unrestorable()) {
      g.writeStartObject();
      g.writeStringField("name", u.name().toString());
      g.writeStringField("reason", words(u.reason()));
      g.writeStringField("detail", u.detail());
      g.writeEndObject();
    }
    g.writeEndArray();
    JsonReport.strings(g, "warnings", r.warnings());
    g.writeNumberField("requests", r.requests());
    g.writeNumberField("bytes", r.bytes());
    JsonReport.optional(g, "lockfileVersion", r.lockfileVersion());
    JsonReport.optional(g, "lockfileSha256", r.lockfileSha256());
    g.writeNumberField("restoreGeneration", r.restoreGeneration());
    g.writeNumberField("exitCode", exitCode(r));
  }
}
