package dev.tierlock.datastore.fs;

import dev.tierlock.spi.ObjectKey;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.NullMarked;

/**
 * A second JVM running a test program ({@link ChildProcess} unless told otherwise) on the test
 * classpath, talking line by line over its standard streams. Every wait is bounded (a bound that
 * only a broken test ever reaches); closing it kills the process if it still runs.
 */
final class ChildJvm implements AutoCloseable {

  /** The bound on any single wait for the child. */
  static final long WAIT_SECONDS = 60;

  private static final String EOF = "\u0000eof";

  private final Process process;
  private final Writer stdin;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private ChildJvm(Process process) {
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread pump = new Thread(this::pump, "child-jvm-stdout");
    pump.setDaemon(true);
    pump.start();
  }

  /** Starts {@link ChildProcess} with these arguments. */
  static ChildJvm start(String... args) throws IOException {
    return start(ChildProcess.class, args);
  }

  /** Starts the program {@code main} with these arguments. */
  static ChildJvm start(Class<?> main, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xshare:auto");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(classpath());
    command.add("-Dslf4j.internal.verbosity=ERROR");
    command.add(main.getName());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    return new ChildJvm(process);
  }

  /** Returns the next line the child printed; fails if none comes within the bound or it exited. */
  String nextLine() throws InterruptedException {
    String line = lines.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    if (line == null || line.equals(EOF)) {
      throw new AssertionError("the child JVM printed no further line (exited: " + !process.isAlive() + ")");
    }
    return line;
  }

  /** Sends one line to the child's standard input. */
  void send(String line) throws IOException {
    stdin.write(line + "\n");
    stdin.flush();
  }

  /** Stops the child as an operator's {@code kill} does (SIGTERM: shutdown hooks run) and waits for it. */
  int terminate() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the child JVM did not exit within " + WAIT_SECONDS + " s of SIGTERM");
    }
    return process.exitValue();
  }

  long pid() {
    return process.pid();
  }

  /** Kills the child at once (no shutdown hooks, no finally blocks) and waits until it is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
      throw new AssertionError("the child JVM did not die within " + WAIT_SECONDS + " s of being killed");
    }
  }

  /** Waits for the child to exit and returns its exit code, and the lines it printed meanwhile. */
  Exit awaitExit() throws InterruptedException {
    if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the child JVM did not exit within " + WAIT_SECONDS + " s");
    }
    List<String> rest = new ArrayList<>();
    for (String line = lines.poll(WAIT_SECONDS, TimeUnit.SECONDS); line != null && !line.equals(EOF);
        line = lines.poll(WAIT_SECONDS, TimeUnit.SECONDS)) {
      rest.add(line);
    }
    return new Exit(process.exitValue(), rest);
  }

  /**
   * How the child ended.
   *
   * @param code its exit code
   * @param lines the lines it printed that were not read yet
   */
  record Exit(int code, List<String> lines) {}

  @Override
  public void close() {
    process.destroyForcibly();
  }

  private void pump() {
    try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        lines.add(line);
      }
    } catch (IOException e) {
      lines.add("pump failed: " + e);
    } finally {
      lines.add(EOF);
    }
  }

  /**
   * The test classpath as surefire reports it, or else this JVM's classpath; and in any case the
   * locations of the test classes, this module's classes, core and JSpecify.
   */
  private static String classpath() {
    Set<String> entries = new LinkedHashSet<>();
    String reported = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path", ""));
    for (String entry : reported.split(System.getProperty("path.separator"))) {
      if (!entry.isBlank()) {
        entries.add(entry);
      }
    }
    for (Class<?> type : List.of(ChildProcess.class, FileSystemDatastore.class, ObjectKey.class, NullMarked.class)) {
      try {
        entries.add(Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
      } catch (URISyntaxException e) {
        throw new IllegalStateException("Cannot locate the classes of " + type, e);
      }
    }
    return String.join(System.getProperty("path.separator"), entries);
  }
}
