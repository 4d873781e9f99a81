package dev.tierlock.cli;

import dev.tierlock.Tierlock;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreMissingException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tierlock init}: makes the chosen datastore ready. A datastore the library finds missing is
 * created through {@link Tierlock.Builder#createDatastore()} (a filesystem datastore's directory:
 * the only command that creates one by hand); then every datastore, remote ones included, runs the
 * precondition self-check, so a store that would lose writes is refused
 * before anyone relies on it.
 */
@Command(name = "init", description = "Creates a filesystem datastore if it is missing, and checks that the datastore"
    + " honours the write preconditions Tierlock relies on.", mixinStandardHelpOptions = true)
final class InitCommand implements Callable<Integer> {

  @ParentCommand TierlockCli root;
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    URI uri = root.datastoreUri();
    PrintWriter out = spec.commandLine().getOut();
    String name = "file".equalsIgnoreCase(uri.getScheme()) ? Path.of(uri).toString() : uri.toString();
    boolean created = false;
    Tierlock.Builder builder = root.builder(uri);
    Datastore store;
    try {
      store = DoctorCommand.provider(uri).open(uri);
    } catch (DatastoreMissingException missing) {
      store = DoctorCommand.provider(uri).create(uri);
      created = true;
    }
    try (Tierlock tierlock = root.open(builder, store)) {
      tierlock.checkDatastore();
      out.println((created ? "created " : "ready: ") + name + " (it honours the write preconditions)");
    }
    out.flush();
    return ExitCodes.OK;
  }
}
