package dev.tierlock.cli;

import dev.tierlock.Environment;
import dev.tierlock.LockOptions;
import dev.tierlock.Namespace;
import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreMissingException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine;

/**
 * The {@code tierlock} command line: entries of the shared lockfile, and the datastore global
 * lock, over the public API. Exit codes are those of {@link ExitCodes}.
 */
@Command(
    name = "tierlock",
    mixinStandardHelpOptions = true,
    versionProvider = TierlockCli.Version.class,
    description = "Reads and changes the shared extension lockfile of a Tierlock datastore, safely against every peer.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:failure (see the message and its code)",
      "2:bad input or usage, or no datastore at the given place",
      "3:not found",
      "4:conflict with a peer's change",
      "69:datastore unavailable, refused or unsafe",
      "75:temporary failure: lock or datastore busy, change saved locally but not yet published, or a lost answer"
          + " still to be settled: run it again"
    })
public final class TierlockCli {

  /**
   * The commands, in the order the help lists them. Only the one a call names is modelled (a
   * model of every command costs a fifth of a second at each start); the help, a call naming no
   * command and an unknown name get them all, so that the listing and the suggestions are whole.
   */
  static final List<Class<?>> COMMANDS = List.of(InitCommand.class, EntriesCommand.class,
      ExtensionsCommands.Install.class, ExtensionsCommands.Remove.class, ExtensionsCommands.Installed.class,
      ConvergeCommands.Converge.class, ConvergeCommands.Status.class, ConvergeCommands.Watch.class,
      LockCommand.class, PendingCommand.class, GcCommand.class, DoctorCommand.class, CompletionCommand.class,
      OptionsCommand.class, HelpCommand.class);

  /**
   * The subcommands of the commands that have some, each list in the order the help lists them. As
   * with {@link #COMMANDS}, only the one a call names is modelled.
   */
  static final Map<Class<?>, List<Class<?>>> SUBCOMMANDS = Map.of(
      EntriesCommand.class, List.of(EntriesCommand.ListEntries.class, EntriesCommand.Show.class, EntriesCommand.Put.class,
          EntriesCommand.Remove.class),
      LockCommand.class, List.of(LockCommand.Status.class, LockCommand.Release.class),
      PendingCommand.class, List.of(PendingCommand.Show.class, PendingCommand.Apply.class, PendingCommand.Discard.class));

  /** How long a command waits in all for locks and the datastore when {@code --timeout} is not given. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  /** The global options that take a value, which the search for the command's name skips. */
  private static final Set<String> VALUED = Set.of("--datastore", "--checkout", "--namespace", "--timeout");

  /** The environment variable that sets the default home of the embedded filesystem datastore. */
  static final String HOME_VARIABLE = "TIERLOCK_HOME";

  @Option(
      names = "--datastore",
      paramLabel = "URI",
      scope = ScopeType.INHERIT,
      description = "Datastore: a URI (file:///path, s3://bucket/prefix?region=..., gs://bucket/prefix) or a directory path. "
          + "Default: a filesystem datastore in $TIERLOCK_HOME/datastore (TIERLOCK_HOME defaults to .tierlock in the"
          + " current directory).")
  String datastore;

  @Option(
      names = "--checkout",
      paramLabel = "DIR",
      scope = ScopeType.INHERIT,
      description = "The checkout whose state directory (.swamp) holds local locks and pending changes. Default: the current directory.")
  Path checkout;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      scope = ScopeType.INHERIT,
      description = "Namespace inside the datastore. Default: none.")
  String namespace;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      scope = ScopeType.INHERIT,
      description = "How long to wait in all for locks and the datastore (30s, 2m, PT90S). Default: 60s.")
  String timeout;

  @Option(
      names = {"-v", "--verbose"},
      scope = ScopeType.INHERIT,
      description = "Say what the library does while it works, one line a step (on stderr): the lease, the lockfile"
          + " fetched, the publish and where it landed; -vv also every datastore call with its duration, and the"
          + " library's debug lines.")
  boolean[] verbose = new boolean[0];

  private final Map<String, String> environment;
  private final Clock clock;

  private final PrintWriter err;

  /** The datastores {@link #open} opened, which {@link #closeOpened} closes. */
  private final List<Datastore> opened = new java.util.ArrayList<>();

  /** The progress lines of the datastores {@link #open} opened, which {@link #closeOpened} clears. */
  private final List<ProgressLine> progressLines = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** The settings, resolved from the flags, the environment and the configuration files on first use. */
  private Settings settings;

  TierlockCli(Map<String, String> environment, Clock clock, PrintWriter err) {
    this.environment = environment;
    this.clock = clock;
    this.err = err;
  }

  /**
   * Runs the command line and exits with its code.
   *
   * @param args the command line: a command, its arguments and options
   */
  public static void main(String[] args) {
    System.exit(run(args, System.getenv(), Clock.systemUTC(), new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /**
   * Runs the command line without exiting.
   *
   * @param args the arguments
   * @param environment the environment variables to consult
   * @param clock the clock for timestamps and lease ages
   * @param out where results go
   * @param err where errors go
   * @return the exit code
   */
  static int run(String[] args, Map<String, String> environment, Clock clock, PrintWriter out, PrintWriter err) {
    // how much the library's lines say, known before anything is opened: -v what it does, -vv its debug lines too
    Voice.start(verbosity(args));
    TierlockCli cli = new TierlockCli(environment, clock, err);
    CommandLine line = commandLine(args, cli);
    line.setOut(ProgressLine.clearing(out, cli.progressLines));
    line.setErr(err);
    line.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      cmd.getErr().println("tierlock: " + describe(ex));
      cmd.getErr().flush();
      return ExitCodes.of(ex);
    });
    line.setParameterExceptionHandler((ex, strings) -> {
      CommandLine cmd = ex.getCommandLine();
      cmd.getErr().println("tierlock: " + ex.getMessage());
      if (ex instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getSuggestions().isEmpty()) {
        cmd.getErr().println("Did you mean: " + String.join(" or ", unmatched.getSuggestions()) + "?");
      }
      cmd.getErr().println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for usage.");
      cmd.getErr().flush();
      return ExitCodes.USAGE;
    });
    try {
      return line.execute(args);
    } finally {
      Interruption.finished();
      cli.closeOpened();
    }
  }

  /**
   * Returns the model of the command line for {@code args}: the command they name alone (and of its
   * subcommands the one they name alone), none for the root's {@code --version} alone, else every
   * command (the help's listing and the suggestions for a mistyped name need them all).
   */
  static CommandLine commandLine(String[] args, TierlockCli root) {
    CommandLine line = new CommandLine(root);
    int at = nameAt(args, 0);
    Optional<Class<?>> command = named(args, at, COMMANDS);
    if (command.isPresent()) {
      line.addSubcommand(model(command.get(), args, at));
    } else if (!versionOnly(args)) {
      COMMANDS.forEach(c -> line.addSubcommand(model(c, args, -1)));
    }
    HelpLayout.apply(line);
    return line;
  }

  /** {@return whether {@code args} are the root's options alone, the version among them and the help not} */
  static boolean versionOnly(String[] args) {
    boolean version = false;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("-h") || arg.equals("--help") || arg.equals("--") || !arg.startsWith("-")) {
        return false;
      }
      version |= arg.equals("-V") || arg.equals("--version");
      if (VALUED.contains(arg)) {
        i++;
      }
    }
    return version;
  }

  /** {@return how many times {@code args} ask for -v (before a {@code --})} */
  static int verbosity(String[] args) {
    int level = 0;
    for (String arg : args) {
      if (arg.equals("--")) {
        break;
      }
      if (arg.equals("--verbose")) {
        level++;
      } else if (arg.matches("-v+")) {
        level += arg.length() - 1;
      }
    }
    return level;
  }

  /**
   * Returns the command {@code args} names, if it is one of {@link #COMMANDS} other than the help:
   * the first argument that is neither an option nor a global option's value, unless the root's
   * help or version is asked for before it.
   */
  static Optional<Class<?>> invoked(String[] args) {
    return named(args, nameAt(args, 0), COMMANDS);
  }

  /**
   * Returns the model of {@code command}: with the one subcommand ({@link #SUBCOMMANDS}) that
   * {@code args} name after the command's own name at {@code at}, else with every subcommand (its
   * help, a call naming none and a mistyped name need them all).
   */
  private static CommandLine model(Class<?> command, String[] args, int at) {
    CommandLine line = new CommandLine(command);
    List<Class<?>> subcommands = SUBCOMMANDS.getOrDefault(command, List.of());
    Optional<Class<?>> subcommand = at < 0 ? Optional.empty() : named(args, nameAt(args, at + 1), subcommands);
    if (subcommand.isPresent()) {
      line.addSubcommand(subcommand.get());
    } else {
      subcommands.forEach(line::addSubcommand);
    }
    return line;
  }

  /** Returns which of {@code commands} the argument at {@code at} names, if one does (none for -1). */
  private static Optional<Class<?>> named(String[] args, int at, List<Class<?>> commands) {
    if (at < 0) {
      return Optional.empty();
    }
    for (Class<?> command : commands) {
      Command annotation = command.getAnnotation(Command.class);
      if (!annotation.helpCommand() && (annotation.name().equals(args[at]) || List.of(annotation.aliases()).contains(args[at]))) {
        return Optional.of(command);
      }
    }
    return Optional.empty();
  }

  /**
   * Returns the index of the first argument from {@code from} that is neither an option nor a global
   * option's value, or -1 if there is none or a help, a version or {@code --} comes before it.
   */
  private static int nameAt(String[] args, int from) {
    for (int i = from; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--") || arg.equals("-h") || arg.equals("--help") || arg.equals("-V") || arg.equals("--version")) {
        return -1; // the help or version of the command before it, which lists every subcommand
      }
      if (!arg.startsWith("-")) {
        return i;
      }
      if (VALUED.contains(arg)) {
        i++;
      }
    }
    return -1;
  }

  /** Whether a command writes to the datastore: only a write may create the embedded default. */
  enum Access {
    READ,
    WRITE
  }

  /**
   * Opens Tierlock on the chosen datastore and checkout. The library refuses a datastore that is
   * not there ({@code datastore_missing}): a read, or a path given by hand, never creates one
   * ({@code tierlock init} does); only a write to the embedded default creates it, at its default
   * place, and says so on stderr.
   *
   * @throws MissingDatastoreException if there is no datastore there (and it may not be created here)
   */
  Tierlock open(Access access) {
    URI uri = datastoreUri();
    // every setting is read before anything is opened or created
    Tierlock.Builder builder = builder(uri);
    Datastore store;
    try {
      store = DoctorCommand.provider(uri).open(uri);
    } catch (DatastoreMissingException missing) {
      if (datastoreGiven() || access == Access.READ) {
        throw new MissingDatastoreException(uri, !datastoreGiven(), missing);
      }
      err.println("tierlock: creating the embedded datastore at " + Path.of(uri));
      err.flush();
      store = DoctorCommand.provider(uri).create(uri);
    }
    return open(builder, store);
  }

  /**
   * Opens Tierlock on {@code store} with {@code builder}'s settings ({@link #builder}); the command
   * line closes the store at the end of the run (also if this fails).
   */
  Tierlock open(Tierlock.Builder builder, Datastore store) {
    try {
      TracedDatastore traced = traced(store);
      Tierlock tierlock = builder.datastore(traced).build();
      opened.add(store);
      Interruption.watch(traced, err);
      return tierlock;
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * Returns {@code store} as the command sees it: its steps told with -v, its calls with -vv, its
   * progress on a terminal (the line cleared at the end of the run), and what an interruption leaves
   * kept; it changes no call. Closing it closes {@code store}.
   *
   * @throws IllegalArgumentException ({@code invalid_input}) if {@code TIERLOCK_PROGRESS} is none of its values
   */
  TracedDatastore traced(Datastore store) {
    TracedDatastore traced = new TracedDatastore(store, Namespace.of(namespaceName()), Voice.verbosity(),
        line -> {
          err.println("tierlock: " + line);
          err.flush();
        }, System::nanoTime);
    ProgressLine line = ProgressLine.of(environment, System.console() != null, Voice.verbosity(), err);
    traced.progress(line);
    if (line != null) {
      progressLines.add(line);
    }
    return traced;
  }

  /** Closes the datastores the command opened, after it has closed its Tierlock. */
  void closeOpened() {
    progressLines.forEach(ProgressLine::clear);
    progressLines.clear();
    opened.forEach(Datastore::close);
    opened.clear();
  }

  /** Returns a builder on {@code uri} with this command line's checkout, namespace, clock and timeout. */
  Tierlock.Builder builder(URI uri) {
    Tierlock.Builder builder = Tierlock.builder().datastore(uri).checkout(checkoutDirectory())
        .namespace(Namespace.of(namespaceName())).environment(Environment.system().withClock(clock));
    // one budget for the whole command: the lease's wait and the transaction's deadline (the
    // checkout's transaction lock, the calls) run out together, given or not
    Duration wait = timeout().orElse(DEFAULT_TIMEOUT);
    return builder.transactionDeadline(wait).lockOptions(LockOptions.DEFAULTS.withMaxWait(wait));
  }

  /** {@return the global settings: each from its flag, its environment variable, a configuration file or the default} */
  Settings settings() {
    if (settings == null) {
      Map<String, String> flags = new java.util.HashMap<>();
      flags.put("datastore", datastore);
      flags.put("checkout", checkout == null ? null : checkout.toString());
      flags.put("namespace", namespace);
      flags.put("timeout", timeout);
      settings = Settings.resolve(flags, environment, Path.of(""));
    }
    return settings;
  }

  /** {@return the checkout's directory: the setting, else the current directory} */
  Path checkoutDirectory() {
    Settings.Value value = settings().get("checkout");
    return value.value().map(v -> value.base().resolve(v)).orElse(value.base()).toAbsolutePath().normalize();
  }

  /** {@return the namespace's name, empty for none} */
  String namespaceName() {
    return settings().get("namespace").value().orElse("");
  }

  /** {@return how long the command waits in all, when set} */
  Optional<Duration> timeout() {
    Settings.Value value = settings().get("timeout");
    return value.value().map(v -> Inputs.duration(value.source(), v));
  }

  /** {@return whether a datastore was named (a flag, a variable or a file), rather than the embedded default} */
  boolean datastoreGiven() {
    return settings().get("datastore").value().isPresent();
  }

  /** Returns the datastore's URI: the setting, or the embedded default in $TIERLOCK_HOME/datastore. */
  URI datastoreUri() {
    Settings.Value value = settings().get("datastore");
    if (value.value().isPresent()) {
      return boundedByTimeout(datastoreUri(value.value().get(), value.base()));
    }
    Path home = Path.of(environment.getOrDefault(HOME_VARIABLE, ".tierlock")).toAbsolutePath().normalize();
    return home.resolve("datastore").toUri();
  }

  /**
   * Returns {@code uri} with {@code --timeout} as the call timeout of an S3 or GCS datastore
   * ({@code apiCallTimeout}, {@code timeout}), unless the URI sets its own: a datastore that cannot be
   * reached then fails within the time the operator gave, not its client's default.
   */
  URI boundedByTimeout(URI uri) {
    Optional<Duration> timeout = timeout();
    if (timeout.isEmpty() || uri.getScheme() == null || uri.getRawFragment() != null || uri.isOpaque()) {
      return uri;
    }
    String parameter = switch (uri.getScheme().toLowerCase(java.util.Locale.ROOT)) {
      case "s3" -> "apiCallTimeout";
      case "gs" -> "timeout";
      default -> null;
    };
    if (parameter == null) {
      return uri;
    }
    String query = uri.getRawQuery();
    if (query != null && java.util.Arrays.stream(query.split("&")).anyMatch(pair -> pair.startsWith(parameter + "="))) {
      return uri;
    }
    String separator = query == null ? "?" : query.isEmpty() ? "" : "&";
    return URI.create(uri + separator + parameter + "=" + timeout.get());
  }

  /** Reads a datastore argument: a URI with a scheme, or else a directory path (relative to {@code base}). */
  static URI datastoreUri(String text, Path base) {
    if (text.isBlank()) {
      throw new IllegalArgumentException("Cannot open datastore \"\": give a URI or a directory path");
    }
    if (text.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*") && !text.matches("^[A-Za-z]:[\\\\/].*")) {
      try {
        return new URI(text);
      } catch (java.net.URISyntaxException e) {
        throw new IllegalArgumentException("Cannot open datastore \"" + text + "\": not a valid URI: " + e.getMessage(), e);
      }
    }
    return base.resolve(text).toAbsolutePath().normalize().toUri();
  }

  /** Returns the clock commands use. */
  Clock clock() {
    return clock;
  }

  private static String describe(Exception ex) {
    if (ex instanceof TierlockException t) {
      return t.getMessage() + " [" + t.code() + "]";
    }
    if (ex instanceof MissingDatastoreException missing) {
      return missing.getMessage() + " [" + MissingDatastoreException.CODE + "]";
    }
    if (ex instanceof IllegalArgumentException) {
      return ex.getMessage() + " [invalid_input]";
    }
    return ex + " [internal]";
  }

  /** Reports the version from the jar manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = TierlockCli.class.getPackage().getImplementationVersion();
      return new String[] {"tierlock " + (v == null ? "(development build)" : v)};
    }
  }
}
