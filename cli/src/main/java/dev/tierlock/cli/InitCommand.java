package dev.tierlock.cli;

import dev.tierlock.Tierlock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tierlock init}: makes the chosen datastore ready. A filesystem datastore's directory is
 * created when missing (the only command that creates one by hand); then every datastore, remote
 * ones included, runs the precondition self-check, so a store that would lose writes is refused
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
    boolean created = false;
    String name = uri.toString();
    if ("file".equalsIgnoreCase(uri.getScheme())) {
      Path dir = Path.of(uri);
      name = dir.toString();
      if (!Files.isDirectory(dir)) {
        try {
          Files.createDirectories(dir);
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot create datastore " + dir + ": " + e.getMessage(), e);
        }
        created = true;
      }
    }
    try (Tierlock tierlock = root.builder(uri).build()) {
      tierlock.checkDatastore();
      out.println((created ? "created " : "ready: ") + name
          + " (it honours the write preconditions)");
    }
    out.flush();
    return ExitCodes.OK;
  }
}
