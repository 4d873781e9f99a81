package dev.tierlock.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The run that trains the start-up archive of the launcher ({@code bin/tierlock}): the commands a
 * start is measured on, on a throwaway filesystem datastore, so that the archive holds the classes
 * they load whatever command a user happens to run first. The launcher starts it with
 * {@code -XX:ArchiveClassesAtExit} (JDK 17 to 24) or {@code -XX:AOTCacheOutput} (JDK 25 and later);
 * it reads no configuration file and no environment variable of the user's, and touches nothing
 * outside the directory it is given.
 */
final class ArchiveTraining {

  /** The calls trained, in order: each a command line, with the datastore and checkout put in front. */
  static final List<List<String>> CALLS = List.of(
      List.of("entries", "put", "@tierlock/training", "1.0.0"),
      List.of("entries", "list"),
      List.of("entries", "list"),
      List.of("--version"));

  private ArchiveTraining() {}

  /**
   * Runs {@link #CALLS} in {@code args[0]}, an empty directory the caller removes afterwards, and
   * exits 0 when each succeeded, else 1 (the launcher then keeps no archive).
   *
   * @param args the directory to work in
   * @throws IOException if the directory cannot be written
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: ArchiveTraining DIRECTORY");
    }
    System.exit(train(Path.of(args[0])) ? 0 : 1);
  }

  /**
   * Runs {@link #CALLS} on a filesystem datastore in {@code directory}, each as the command line
   * runs it, their output discarded.
   *
   * @return whether every call exited 0
   * @throws IOException if {@code directory} cannot be written
   */
  static boolean train(Path directory) throws IOException {
    Path home = Files.createDirectories(directory.resolve("home"));
    Path checkout = Files.createDirectories(directory.resolve("checkout"));
    // only the home of the embedded default: no configuration file of the user's is read
    Map<String, String> environment = Map.of(TierlockCli.HOME_VARIABLE, home.toString());
    PrintWriter discard = new PrintWriter(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
    boolean ok = true;
    for (List<String> call : CALLS) {
      List<String> args = new ArrayList<>(List.of("--checkout", checkout.toString()));
      args.addAll(call);
      ok &= TierlockCli.run(args.toArray(String[]::new), environment, Clock.systemUTC(), discard, discard) == 0;
    }
    return ok;
  }
}
