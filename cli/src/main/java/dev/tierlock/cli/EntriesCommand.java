package dev.tierlock.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tierlock entries ...}: read and change entries of the shared lockfile. */
@Command(
    name = "entries",
    description = "List, show, put and remove entries of the shared lockfile.",
    mixinStandardHelpOptions = true)
final class EntriesCommand {

  @ParentCommand TierlockCli root;

  /** {@code entries list}. */
  @Command(name = "list", description = "Fetches the shared lockfile and lists its entries: a table of NAME, VERSION,"
      + " PULLED-AT and CHECKSUM (its first 12 hex digits).", mixinStandardHelpOptions = true)
  static final class ListEntries implements Callable<Integer> {
    @ParentCommand EntriesCommand parent;
    @Spec CommandSpec spec;
    @Mixin Table.Options table;

    @Option(names = "--json", description = "Print the entries as JSON.")
    boolean json;

    @Option(names = "--raw", description = "Print the lockfile itself, exactly as stored.")
    boolean raw;

    @Override
    public Integer call() {
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.READ)) {
        // one conditional read, and nothing written anywhere (not even the checkout's cache)
        Lockfile lockfile = tierlock.snapshot();
        PrintWriter out = spec.commandLine().getOut();
        if (raw) {
          out.print(lockfile.text());
        } else if (json) {
          JsonReport.print(out, "entries list", g -> {
            g.writeArrayFieldStart("entries");
            for (Map.Entry<ExtensionName, LockfileEntry> e : lockfile.entries().entrySet()) {
              entry(g, e.getKey(), e.getValue());
            }
            g.writeEndArray();
            g.writeArrayFieldStart("foreign");
            for (Lockfile.Foreign f : lockfile.foreign()) {
              g.writeStartObject();
              g.writeStringField("name", f.name());
              g.writeStringField("reason", f.reason());
              g.writeEndObject();
            }
            g.writeEndArray();
          });
        } else {
          Table text = new Table(List.of("NAME", "VERSION", "PULLED-AT", "CHECKSUM"));
          for (Map.Entry<ExtensionName, LockfileEntry> e : lockfile.entries().entrySet()) {
            LockfileEntry entry = e.getValue();
            text.row(e.getKey().toString(), entry.version(), entry.pulledAt(),
                entry.checksum().map(c -> "sha256:" + c.substring(0, 12)).orElse("-"));
          }
          // members that are not valid entries are kept as they are; a write to them is refused
          lockfile.foreign().forEach(f -> text.row(f.name(), "-", "-", "(foreign: " + f.reason() + ")"));
          text.print(out, table, "(no entries)");
        }
        out.flush();
        return ExitCodes.OK;
      }
    }
  }

  /** {@code entries show NAME}. */
  @Command(name = "show", description = "Prints one entry: each of its fields on a line of its own.",
      mixinStandardHelpOptions = true)
  static final class Show implements Callable<Integer> {
    @ParentCommand EntriesCommand parent;
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "Scoped name, like @scope/name.")
    String name;

    @Option(names = "--json", description = "Print the entry as JSON.")
    boolean json;

    @Option(names = "--raw", description = "Print the entry as the lockfile stores it: a lockfile of this entry alone.")
    boolean raw;

    @Override
    public Integer call() {
      ExtensionName extension = ExtensionName.of(name);
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.READ)) {
        LockfileEntry entry = tierlock.snapshot().entry(extension)
            .orElseThrow(() -> new NotFoundException("Cannot show entry " + extension + ": the shared lockfile has no such entry"));
        PrintWriter out = spec.commandLine().getOut();
        if (raw) {
          out.print(Lockfile.EMPTY.with(extension, entry).text());
        } else if (json) {
          JsonReport.print(out, "entries show", g -> {
            g.writeFieldName("entry");
            entry(g, extension, entry);
          });
        } else {
          out.println("name:           " + extension);
          out.println("version:        " + entry.version());
          out.println("pulledAt:       " + entry.pulledAt());
          out.println("checksum:       " + entry.checksum().map(c -> "sha256:" + c).orElse("- (pins no archive)"));
          out.println("filesChecksum:  " + entry.filesChecksum().map(c -> "sha256:" + c).orElse("-"));
          out.println("channel:        " + entry.channel().orElse("- (stable)"));
          out.println("serverUrl:      " + entry.serverUrl().orElse("- (the default)"));
        }
        out.flush();
        return ExitCodes.OK;
      }
    }
  }

  /** Writes {@code entry} as one JSON object: its name and fields, an absent one {@code null}. */
  static void entry(JsonGenerator g, ExtensionName name, LockfileEntry entry) throws IOException {
    g.writeStartObject();
    g.writeStringField("name", name.toString());
    g.writeStringField("version", entry.version());
    g.writeStringField("pulledAt", entry.pulledAt());
    JsonReport.optional(g, "checksum", entry.checksum());
    JsonReport.optional(g, "filesChecksum", entry.filesChecksum());
    JsonReport.optional(g, "channel", entry.channel());
    JsonReport.optional(g, "serverUrl", entry.serverUrl());
    JsonReport.strings(g, "files", entry.files());
    g.writeEndObject();
  }

  /** {@code entries put NAME VERSION}. */
  @Command(name = "put", description = "Adds or updates one entry, in a transaction against every peer.", mixinStandardHelpOptions = true)
  static final class Put implements Callable<Integer> {
    @ParentCommand EntriesCommand parent;
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "Scoped name, like @scope/name.")
    String name;

    @Parameters(index = "1", paramLabel = "VERSION", description = "Exact version or constraint pin.")
    String version;

    @Option(names = "--checksum", paramLabel = "SHA256",
        description = "SHA-256 of the archive: 64 hex characters, any case, optionally prefixed sha256:.")
    String checksum;

    @Option(names = "--files-checksum", paramLabel = "SHA256",
        description = "SHA-256 of the extracted files: 64 hex characters, any case, optionally prefixed sha256:.")
    String filesChecksum;

    @Option(names = "--channel", paramLabel = "CHANNEL", description = "Release channel (absent means stable).")
    String channel;

    @Option(names = "--server-url", paramLabel = "URL", description = "Registry the extension came from, if not the default.")
    String serverUrl;

    @Option(names = "--pulled-at", paramLabel = "WHEN",
        description = "When it was pulled: an ISO-8601 instant (2024-01-01T10:00:00Z) or date (2024-01-01). Default: now.")
    String pulledAt;

    @Override
    public Integer call() {
      // every argument is read before anything is opened or locked
      ExtensionName extension = ExtensionName.of(name);
      Instant at = pulledAt != null ? Inputs.instant("--pulled-at", pulledAt) : parent.root.clock().instant();
      // A fresh entry from the arguments alone: a new version never inherits the old checksum,
      // files or filesChecksum, and channel and server URL are what the arguments say.
      LockfileEntry.Builder builder = LockfileEntry.builder(version, at);
      if (checksum != null) {
        builder.checksum(LockfileEntry.sha256("--checksum", checksum));
      }
      if (filesChecksum != null) {
        builder.filesChecksum(LockfileEntry.sha256("--files-checksum", filesChecksum));
      }
      if (channel != null) {
        builder.channel(Inputs.channel(channel));
      }
      if (serverUrl != null) {
        builder.serverUrl(Inputs.serverUrl(serverUrl));
      }
      LockfileEntry entry = builder.build();
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.WRITE)) {
        TransactionResult result = tierlock.transaction().run(ctx -> ctx.withPulledExtensionsLock(() -> {
          ctx.put(extension, entry);
          return entry;
        }));
        report(spec.commandLine(), "put " + extension + " " + version, result);
        if (checksum == null) {
          spec.commandLine().getErr().println("tierlock: note: " + extension + " pins no archive (no --checksum): the"
              + " tier cannot restore it; install takes it from a registry");
          spec.commandLine().getErr().flush();
        }
        return ExitCodes.OK;
      }
    }
  }

  /** {@code entries remove NAME}. */
  @Command(name = "remove", aliases = "rm", description = "Removes one entry, in a transaction against every peer.", mixinStandardHelpOptions = true)
  static final class Remove implements Callable<Integer> {
    @ParentCommand EntriesCommand parent;
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "Scoped name, like @scope/name.")
    String name;

    @Option(names = "--ignore-not-found", description = "A name the shared lockfile does not have is not an error"
        + " (exit 0, nothing changed).")
    boolean ignoreNotFound;

    @Override
    public Integer call() {
      ExtensionName extension = ExtensionName.of(name);
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.WRITE)) {
        AtomicReference<LockfileEntry> removed = new AtomicReference<>();
        TransactionResult result = tierlock.transaction().run(ctx -> ctx.withPulledExtensionsLock(() -> {
          Optional<LockfileEntry> gone = ctx.remove(extension);
          if (gone.isEmpty() && !ignoreNotFound) {
            throw new NotFoundException("Cannot remove entry " + extension + ": the shared lockfile has no such entry"
                + " (--ignore-not-found makes that no error)");
          }
          removed.set(gone.orElse(null));
          return null;
        }));
        if (removed.get() == null) {
          spec.commandLine().getOut().println("(nothing to remove: the shared lockfile has no entry " + extension + ")");
          spec.commandLine().getOut().flush();
        } else {
          report(spec.commandLine(), "removed " + extension + " " + removed.get().version(), result);
        }
        return ExitCodes.OK;
      }
    }
  }

  /** Prints what a transaction did on {@code cmd}'s output, and its warnings on its error stream, each once. */
  static void report(CommandLine cmd, String what, TransactionResult result) {
    PrintWriter out = cmd.getOut();
    out.println(switch (result.status()) {
      case PUBLISHED -> what + " (published)";
      case NO_CHANGE -> what + " (already so; nothing to publish)";
      case DEFERRED -> what + " (saved locally; publish deferred)";
    });
    out.flush();
    result.warnings().forEach(w -> Voice.warn(cmd.getErr(), w));
  }
}
