package dev.tierlock.cli;

import dev.tierlock.ExtensionName;
import dev.tierlock.InvalidInputException;
import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.ExtensionLayout;
import dev.tierlock.install.ExtensionManifest;
import dev.tierlock.install.ExtensionRegistry;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.InstallResult;
import dev.tierlock.install.InstalledExtension;
import dev.tierlock.install.Installer;
import dev.tierlock.install.PinnedInstallResult;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code tierlock install}, {@code remove} and {@code installed}: the install engine on the
 * checkout's {@code extensions/} directory, each extension in {@code extensions/@scope/name} with a
 * {@code manifest.json}.
 */
final class ExtensionsCommands {

  /** The directory of the checkout the commands install into. */
  static final String EXTENSIONS = "extensions";

  private ExtensionsCommands() {}

  /** The command line's layout: {@code <checkout>/extensions}, JSON manifests, no bundles, no skills. */
  static ExtensionLayout layout(Tierlock tierlock) {
    Path root = tierlock.checkoutDirectory().resolve(EXTENSIONS);
    return new ExtensionLayout() {
      @Override
      public Path pulledRoot() {
        return root;
      }

      @Override
      public ExtensionManifest readManifest(Path file) {
        return ExtensionManifest.readJson(file);
      }
    };
  }

  /** {@code tierlock install [NAME[@CONSTRAINT]]}. */
  @Command(name = "install", mixinStandardHelpOptions = true,
      description = {"Installs an extension into extensions/ and records it in the shared lockfile: from the tier when"
          + " the lockfile pins its archive, else from the registry.",
          "Without a name: installs everything the shared lockfile pins that extensions/ lacks (from the tier first,"
          + " then the registry; edited extensions are left as they are) and stores back in the tier each pinned"
          + " archive it lacks, from the registry's release when its bytes are the pinned ones. One line per entry;"
          + " the exit code is the first failure's."})
  static final class Install implements Callable<Integer> {
    @ParentCommand TierlockCli root;
    @Spec CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME[@CONSTRAINT]",
        description = "Scoped name, optionally with a version or range: @acme/tool, @acme/tool@1.2.0, @acme/tool@^1.2."
            + " Without one: the version the lockfile pins, else the latest. Without a name: every entry.")
    String spec0;

    @Option(names = "--registry", paramLabel = "DIR|URI",
        description = "A directory registry: <dir>/<@scope>/<name>/<version>.tar.gz with <version>.tar.gz.sha256 beside"
            + " it (a path or a file: URI). Default: none (the tier only).")
    String registry;

    @Override
    public Integer call() {
      // every argument is read before anything is opened or locked: a registry that is not there is a
      // usage error now, not "unavailable" later, nor ignored when the tier holds the archive
      Optional<InstallRequest> request = Optional.ofNullable(spec0).map(InstallRequest::parse);
      Optional<Path> registryDirectory = Optional.ofNullable(registry).map(Install::registryDirectory);
      try (Tierlock tierlock = root.open(TierlockCli.Access.WRITE)) {
        Installer.Builder builder = Installer.builder(tierlock, layout(tierlock));
        registryDirectory.ifPresent(directory -> builder.registry(ExtensionRegistry.directory(directory)));
        Installer installer = builder.build();
        return request.isPresent() ? install(installer, request.get()) : installPinned(installer);
      }
    }

    private int install(Installer installer, InstallRequest request) {
      InstallResult result = installer.install(request, Catalog.NONE);
      PrintWriter out = spec.commandLine().getOut();
      for (ExtensionManifest m : result.installed()) {
        out.printf("%s@%s\tinstalled from the %s%n", m.name(), m.version(),
            result.sources().get(m.name()).name().toLowerCase(java.util.Locale.ROOT));
      }
      out.println("(" + result.transaction().status().name().toLowerCase(java.util.Locale.ROOT)
          + (result.recorded() ? "" : ", lockfile entry left as it was") + ")");
      result.transaction().warnings().forEach(w -> Voice.warn(spec.commandLine().getErr(), w));
      out.flush();
      return ExitCodes.OK;
    }

    private int installPinned(Installer installer) {
      PinnedInstallResult result = installer.installPinned(Catalog.NONE);
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      List<RuntimeException> failures = new ArrayList<>();
      int installed = 0;
      for (PinnedInstallResult.Outcome o : result.outcomes()) {
        out.printf("%s@%s\t%s\t%s%n", o.name(), o.entry().version(), installColumn(o), backfillColumn(o.backfill()));
        if (o.install() == PinnedInstallResult.Outcome.Install.INSTALLED) {
          installed++;
        }
        o.installed().ifPresent(r -> r.transaction().warnings().forEach(w -> Voice.warn(err, w)));
        Stream.of(o.installFailure(), o.backfillFailure()).flatMap(Optional::stream).forEach(failure -> {
          err.println("tierlock: " + o.name() + ": " + describe(failure));
          failures.add(failure);
        });
      }
      out.println(result.outcomes().isEmpty() ? "(nothing pinned: the shared lockfile has no entries)"
          : "(" + result.outcomes().size() + " entries: " + installed + " installed, " + result.backfilled().size()
              + " backfilled, " + result.failures().size() + " failed)");
      out.flush();
      err.flush();
      return failures.isEmpty() ? ExitCodes.OK : ExitCodes.of(failures.get(0));
    }

    private static String installColumn(PinnedInstallResult.Outcome o) {
      return switch (o.install()) {
        case ALREADY_INSTALLED -> "already installed";
        case INSTALLED -> "installed from the " + o.source().orElseThrow().name().toLowerCase(java.util.Locale.ROOT);
        case LEFT_EDITED -> "left as edited";
        case FAILED -> "install failed";
      };
    }

    private static String backfillColumn(PinnedInstallResult.Outcome.Backfill backfill) {
      return switch (backfill) {
        case PRESENT -> "archive in the tier";
        case STORED -> "archive backfilled";
        case UNPINNED -> "no archive pinned";
        case SKIPPED -> "backfill skipped (no registry)";
        case FAILED -> "backfill failed";
      };
    }

    /** One line for {@code failure}, as the command line reports a failure: its message and code. */
    private static String describe(RuntimeException failure) {
      if (failure instanceof TierlockException t) {
        return t.getMessage() + " [" + t.code() + "]";
      }
      if (failure instanceof IllegalArgumentException) {
        return failure.getMessage() + " [invalid_input]";
      }
      return failure + " [internal]";
    }

    private static Path registryDirectory(String text) {
      Path directory;
      if (text.startsWith("file:")) {
        directory = Path.of(URI.create(text));
      } else if (text.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
        throw InvalidInputException.value("--registry", text, "give a directory (a path or a file: URI)");
      } else {
        directory = Path.of(text).toAbsolutePath().normalize();
      }
      if (!Files.isDirectory(directory)) {
        throw InvalidInputException.value("--registry", text, "no such directory (" + directory + "): give the"
            + " registry's directory, <dir>/<@scope>/<name>/<version>.tar.gz");
      }
      return directory;
    }
  }

  /** {@code tierlock remove NAME}. */
  @Command(name = "remove", mixinStandardHelpOptions = true,
      description = "Removes an extension from extensions/ and its entry from the shared lockfile (its archive stays"
          + " in the tier until 'tierlock gc' collects it). A name neither installed nor in the lockfile is not_found"
          + " (exit 3) unless --ignore-not-found.")
  static final class Remove implements Callable<Integer> {
    @ParentCommand TierlockCli root;
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "Scoped name, like @scope/name.")
    String name;

    @Option(names = "--ignore-not-found", description = "A name neither installed nor in the shared lockfile is not an"
        + " error (exit 0, nothing changed).")
    boolean ignoreNotFound;

    @Override
    public Integer call() {
      ExtensionName extension = ExtensionName.of(name);
      try (Tierlock tierlock = root.open(TierlockCli.Access.WRITE)) {
        Installer installer = Installer.builder(tierlock, layout(tierlock)).build();
        Optional<InstalledExtension> before = installer.installed().stream().filter(e -> e.name().equals(extension))
            .findFirst();
        TransactionResult result = installer.remove(extension, Catalog.NONE);
        PrintWriter out = spec.commandLine().getOut();
        if (result.status() == TransactionStatus.NO_CHANGE && result.delta().isEmpty()) {
          if (!ignoreNotFound) {
            throw new NotFoundException("Cannot remove " + extension + ": it is neither installed nor in the shared"
                + " lockfile (--ignore-not-found makes that no error)");
          }
          out.println("(nothing to remove: " + extension + " is neither installed nor in the lockfile)");
        } else {
          List<String> what = new ArrayList<>();
          before.flatMap(InstalledExtension::installedVersion).ifPresent(v -> what.add(v + " from extensions/"));
          if (result.delta().removals().contains(extension)) {
            what.add(before.flatMap(InstalledExtension::entry).map(e -> "entry " + e.version() + " ")
                .orElse("its entry ") + "from the shared lockfile");
          }
          out.println("removed " + extension + (what.isEmpty() ? "" : " (" + String.join(", ", what) + ")") + " ("
              + result.status().name().toLowerCase(Locale.ROOT) + ")");
        }
        result.warnings().forEach(w -> Voice.warn(spec.commandLine().getErr(), w));
        out.flush();
        return ExitCodes.OK;
      }
    }
  }

  /** {@code tierlock installed [--json] [--no-headers]}. */
  @Command(name = "installed", mixinStandardHelpOptions = true,
      description = "Lists what extensions/ holds against the shared lockfile: a table of NAME, PINNED, INSTALLED and"
          + " STATE (matches, edited, other version, missing, unrecorded), the columns of 'tierlock status'.")
  static final class Installed implements Callable<Integer> {
    @ParentCommand TierlockCli root;
    @Spec CommandSpec spec;
    @Mixin Table.Options table;

    @Option(names = "--json", description = "Print the extensions as JSON.")
    boolean json;

    @Override
    public Integer call() {
      try (Tierlock tierlock = root.open(TierlockCli.Access.READ)) {
        List<StatusRow> rows = Installer.builder(tierlock, layout(tierlock)).build().installed().stream()
            .map(StatusRow::of).toList();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
          JsonReport.print(out, "installed", g -> {
            g.writeArrayFieldStart("extensions");
            for (StatusRow row : rows) {
              row.json(g);
            }
            g.writeEndArray();
          });
        } else {
          Table text = new Table(Table.EXTENSIONS.subList(0, 4));
          rows.forEach(row -> text.row(row.cells()));
          text.print(out, table, "(nothing installed, no entries)");
        }
        out.flush();
        return ExitCodes.OK;
      }
    }
  }
}
