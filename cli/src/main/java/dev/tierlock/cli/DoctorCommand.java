package dev.tierlock.cli;

import dev.tierlock.Namespace;
import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import dev.tierlock.InvalidInputException;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreMissingException;
import dev.tierlock.spi.DatastoreProvider;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code tierlock doctor}: one line per check of the datastore and the checkout, and an exit code
 * by the worst finding. Read-only: it never creates a datastore, a checkout or a state directory,
 * never takes a lock, and never writes to the datastore (its datastore refuses every write and
 * delete) unless {@code --self-check} is given, which runs the precondition self-check. Each check
 * is a {@link DoctorCheck} of its own; this command runs them in order, skips those whose
 * prerequisite is missing, and prints the {@link DoctorReport}.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
    description = {
      "Checks the datastore and this checkout, and prints one line per check: ok|warn|fail|skip, the check, what"
          + " it found and what to run.",
      "Checks: configuration (each setting and where it came from: flag, TIERLOCK_* variable, .tierlock.toml,"
          + " the user's config.toml or default), datastore-reachable (one read of the shared lockfile: present, version, size, parses),"
          + " datastore-identity, self-check (the verdict this checkout and the store hold; with --self-check, the"
          + " check itself), global-lock (holder, since when, whether its process is alive, stopped or gone, and"
          + " 'not renewing (stopped or hung?)' when its heartbeat is past its ttl; break-glass only when it will"
          + " work), pending-record, state-directory (.swamp: writable, lock files, leftover temp files, its JSON"
          + " files parse), install-staging (extensions/.tierlock-staging: journals of interrupted installs) and"
          + " checkout-lock (who holds this checkout's transaction lock: pid, and whether it is stopped).",
      "Read-only: it creates no datastore, checkout or state directory, takes no lock, and writes nothing to the"
          + " datastore unless --self-check is given. A check that needs something missing (the datastore, the"
          + " state directory) is skipped."},
    footer = {"",
      "Exit code: 0 when no check fails (the summary says 'warnings' when some warn); otherwise the exit code of the"
          + " first failing check: 2 no datastore at the given place (datastore_missing), 1 a lockfile that does not"
          + " parse (lockfile_format), a pending change in doubt or unreadable (lockfile_outcome_unknown), or a state"
          + " directory that cannot be used, 69 a datastore unavailable, refused or unsafe."})
final class DoctorCommand implements Callable<Integer> {

  /** The names of the checks, in the order they are printed. */
  static final List<String> CHECKS = List.of(ConfigurationCheck.NAME, DatastoreReachableCheck.NAME, DatastoreIdentityCheck.NAME,
      SelfCheckVerdictCheck.NAME, GlobalLockCheck.NAME, PendingRecordCheck.NAME, StateDirectoryCheck.NAME,
      InstallStagingCheck.NAME, CheckoutLockCheck.NAME);

  @ParentCommand TierlockCli root;
  @Spec CommandSpec spec;

  @Option(names = "--json", description = "Print the findings as one JSON object: checks, summary, exitCode.")
  boolean json;

  @Option(names = "--self-check", description = "Run the datastore's precondition self-check (as 'tierlock init' does):"
      + " unless a fresh verdict is proven by one read, it writes and deletes probe objects under"
      + " [<namespace>/].tierlock-selfcheck/ and leaves a verdict object there. Without it, doctor only reports the"
      + " verdict this checkout recorded and the store holds, and writes nothing.")
  boolean selfCheck;

  @Override
  public Integer call() {
    Instant now = root.clock().instant();
    Namespace namespace = Namespace.of(root.namespaceName());
    URI uri = root.datastoreUri();
    // every argument is read before anything is opened
    Tierlock.Builder builder = root.builder(uri);
    Path checkout = root.checkoutDirectory();
    DoctorContext doctor = new DoctorContext(now, root.clock(), namespace, checkout, builder, selfCheck);
    // the local checks first, before anything (a --self-check) may create the state directory
    DoctorFinding stateDirectory = new StateDirectoryCheck().run(doctor);
    DoctorFinding staging = new InstallStagingCheck().run(doctor);
    DoctorFinding checkoutLock = new CheckoutLockCheck().run(doctor);

    List<DoctorFinding> findings = new ArrayList<>();
    findings.add(new ConfigurationCheck(root.settings()).run(doctor));
    findings.addAll(datastoreChecks(uri, doctor));
    findings.add(stateDirectory);
    findings.add(staging);
    findings.add(checkoutLock);
    DoctorReport report = new DoctorReport(uri, findings);
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      report.printJson(out);
    } else {
      report.printText(out);
    }
    out.flush();
    return report.exitCode();
  }

  /**
   * Opens the datastore and runs the checks that read it, in order: those that need an answer are
   * skipped when it gives none, and all of them when it cannot be opened.
   *
   * @throws InvalidInputException ({@code unknown_scheme}) if no provider handles the URI's scheme (a usage error)
   */
  private List<DoctorFinding> datastoreChecks(URI uri, DoctorContext doctor) {
    Datastore opened;
    try {
      opened = openDatastore(uri);
    } catch (DatastoreMissingException e) {
      String missing = MissingDatastoreException.message(uri, !root.datastoreGiven());
      return unopened(DoctorFinding.fail(DatastoreReachableCheck.NAME, missing, null, MissingDatastoreException.CODE,
          ExitCodes.USAGE), "no datastore");
    } catch (InvalidInputException e) {
      throw e;
    } catch (TierlockException e) {
      return unopened(DoctorFinding.failure(DatastoreReachableCheck.NAME, "Cannot open datastore " + uri, e, null),
          "the datastore could not be opened");
    }
    Datastore shown;
    try {
      // its calls shown as any command's: a --self-check's progress on a terminal, its calls with -vv
      shown = root.traced(opened);
    } catch (RuntimeException e) {
      opened.close();
      throw e;
    }
    try (shown; DoctorContext over = doctor.over(new ReadOnlyDatastore(shown))) {
      DatastoreReachableCheck reachable = new DatastoreReachableCheck();
      List<DoctorFinding> findings = new ArrayList<>();
      findings.add(reachable.run(over));
      findings.add(new DatastoreIdentityCheck().run(over));
      for (DoctorCheck check : List.<DoctorCheck>of(new SelfCheckVerdictCheck(), new GlobalLockCheck())) {
        findings.add(reachable.answered() ? check.run(over)
            : DoctorFinding.skip(check.name(), "the datastore did not answer"));
      }
      findings.add(new PendingRecordCheck().run(over));
      return findings;
    }
  }

  /** The findings when the datastore cannot be opened: its failure, then every check that reads it skipped. */
  private static List<DoctorFinding> unopened(DoctorFinding failure, String why) {
    List<DoctorFinding> findings = new ArrayList<>(List.of(failure));
    for (String check : List.of(DatastoreIdentityCheck.NAME, SelfCheckVerdictCheck.NAME, GlobalLockCheck.NAME,
        PendingRecordCheck.NAME)) {
      findings.add(DoctorFinding.skip(check, why));
    }
    return findings;
  }

  /** Opens the datastore a URI names, through the provider of its scheme (as the library's builder does). */
  static Datastore openDatastore(URI uri) {
    return provider(uri).open(uri);
  }

  /**
   * Returns the provider of {@code uri}'s scheme, as the library's builder finds it.
   *
   * @throws InvalidInputException ({@code unknown_scheme}) if no provider handles it; the message lists those found
   */
  static DatastoreProvider provider(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    ServiceLoader<DatastoreProvider> providers = loader == null
        ? ServiceLoader.load(DatastoreProvider.class, DoctorCommand.class.getClassLoader())
        : ServiceLoader.load(DatastoreProvider.class, loader);
    TreeSet<String> schemes = new TreeSet<>();
    for (DatastoreProvider provider : providers) {
      if (provider.scheme().equals(scheme)) {
        return provider;
      }
      schemes.add(provider.scheme());
    }
    String shown = uri.getUserInfo() == null ? uri.toString() : uri.toString().replace(uri.getRawUserInfo() + "@", "");
    throw InvalidInputException.scheme(shown, List.copyOf(schemes));
  }
}
