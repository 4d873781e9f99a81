package dev.tierlock.cli;

import dev.tierlock.PendingChange;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionResult;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tierlock pending ...}: the checkout's change that is recorded but not known to be published. */
@Command(
    name = "pending",
    description = "Shows, re-applies or discards this checkout's change that is not known to be published.",
    mixinStandardHelpOptions = true)
final class PendingCommand {

  @ParentCommand TierlockCli root;

  /** {@code pending show}. */
  @Command(name = "show", description = "Shows the pending change, if any, and where it stands.", mixinStandardHelpOptions = true)
  static final class Show implements Callable<Integer> {
    @ParentCommand PendingCommand parent;
    @Spec CommandSpec spec;

    @Option(names = "--json", description = "Print the pending change as JSON ({\"pending\": null} when there is none).")
    boolean json;

    @Override
    public Integer call() {
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.READ)) {
        PrintWriter out = spec.commandLine().getOut();
        Optional<PendingChange> pending = tierlock.transaction().pending();
        if (json) {
          JsonReport.print(out, "pending show", g -> {
            if (pending.isEmpty()) {
              g.writeNullField("pending");
              return;
            }
            PendingChange change = pending.get();
            g.writeObjectFieldStart("pending");
            g.writeStringField("state", JsonReport.words(change.state()));
            g.writeStringField("description", change.describe());
            JsonReport.optional(g, "commitId", change.commitId());
            JsonReport.optional(g, "reason", change.reason());
            g.writeStringField("record", change.record().toString());
            g.writeArrayFieldStart("entries");
            for (dev.tierlock.ExtensionName name : change.delta().names()) {
              g.writeStartObject();
              g.writeStringField("name", name.toString());
              JsonReport.optional(g, "version", change.delta().target(name).map(e -> e.version()));
              g.writeEndObject();
            }
            g.writeEndArray();
            g.writeStringField("next", next(change));
            g.writeEndObject();
          });
        } else if (pending.isEmpty()) {
          out.println("(nothing pending)");
        } else {
          PendingChange change = pending.get();
          out.println(change.describe());
          out.println("record: " + change.record());
          out.println(next(change));
        }
        out.flush();
        return ExitCodes.OK;
      }
    }
  }

  /** {@return what settles {@code change}, or what to run} */
  static String next(PendingChange change) {
    return switch (change.state()) {
      case UNPUBLISHED, IN_FLIGHT -> "the next transaction on this checkout settles it";
      case OUTCOME_UNKNOWN -> "every transaction on this checkout fails until you run 'tierlock pending apply'"
          + " (an entry another checkout changed to another value since is left alone; one still at the value"
          + " the change was made on is set again, even where another checkout set it back to that value after"
          + " the change landed) or 'tierlock pending discard'";
      case UNREADABLE -> "every transaction on this checkout fails until you run 'tierlock pending discard'";
    };
  }

  /** {@code pending apply}. */
  @Command(name = "apply", description = "Re-applies the pending change against the shared lockfile as it is now: an entry"
      + " another checkout changed to another value is left alone; one still at its old value is set again.",
      mixinStandardHelpOptions = true)
  static final class Apply implements Callable<Integer> {
    @ParentCommand PendingCommand parent;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.WRITE)) {
        Optional<PendingChange> pending = tierlock.transaction().pending();
        if (pending.isEmpty()) {
          spec.commandLine().getOut().println("(nothing pending)");
          spec.commandLine().getOut().flush();
          return ExitCodes.OK;
        }
        TransactionResult result = tierlock.transaction().reapplyPending();
        EntriesCommand.report(spec.commandLine(), "re-applied the pending change (" + pending.get().describe() + ")", result);
        return ExitCodes.OK;
      }
    }
  }

  /** {@code pending discard}. */
  @Command(name = "discard", description = "Drops the pending change without publishing it. Check the shared lockfile"
      + " first: a change whose outcome was unknown may be in it, or not.", mixinStandardHelpOptions = true)
  static final class Discard implements Callable<Integer> {
    @ParentCommand PendingCommand parent;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.READ)) {
        PrintWriter out = spec.commandLine().getOut();
        Optional<PendingChange> discarded = tierlock.transaction().discardPending();
        out.println(discarded.map(p -> "discarded " + p.describe()).orElse("(nothing pending)"));
        out.flush();
        return ExitCodes.OK;
      }
    }
  }
}
