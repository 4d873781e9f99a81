package dev.tierlock.internal;

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
import org.slf4j.LoggerFactory;

/**
 * A second JVM running {@link LockChild} on the test class path, talking line by line over its
 * standard streams, so that tests can hold locks from another process. Every wait is bounded by
 * {@link #WAIT_SECONDS}, a bound only a broken test reaches; closing it kills the process if it still
 * runs.
 */
public final class ChildJvm implements AutoCloseable {

  /** The bound on any single wait for the child. */
  public static final long WAIT_SECONDS = 60;

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

  /** Starts {@link LockChild} with these arguments. */
  public static ChildJvm start(String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xshare:auto");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(classpath());
    command.add("-Dslf4j.internal.verbosity=ERROR");
    command.add(LockChild.class.getName());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    return new ChildJvm(process);
  }

  /** Returns the next line the child printed; fails if none comes within the bound or it exited. */
  public String nextLine() throws InterruptedException {
    String line = lines.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    if (line == null || line.equals(EOF)) {
      throw new AssertionError("the child JVM printed no further line (exited: " + !process.isAlive() + ")");
    }
    return line;
  }

  /** Sends one line to the child's standard input. */
  public void send(String line) throws IOException {
    stdin.write(line + "\n");
    stdin.flush();
  }

  /** Returns the child's process id. */
  public long pid() {
    return process.pid();
  }

  /** Waits for the child to exit and returns its exit code. */
  public int awaitExit() throws InterruptedException {
    if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the child JVM did not exit within " + WAIT_SECONDS + " s");
    }
    return process.exitValue();
  }

  /**
   * Runs a child that tries the OS lock of {@code lockFile} itself once, with a plain {@code
   * FileChannel}, and returns what it saw: {@code free} or {@code busy}.
   */
  public static String probe(Path lockFile) throws IOException, InterruptedException {
    try (ChildJvm child = start("probe", lockFile.toString())) {
      String seen = child.nextLine();
      if (child.awaitExit() != 0) {
        throw new AssertionError("the probing child failed after printing " + seen);
      }
      return seen;
    }
  }

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
   * The test class path as surefire reports it, or else this JVM's {@code java.class.path}; and in
   * any case the locations of the test classes, core's classes, JSpecify and SLF4J.
   */
  private static String classpath() {
    Set<String> entries = new LinkedHashSet<>();
    String reported = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path", ""));
    for (String entry : reported.split(System.getProperty("path.separator"))) {
      if (!entry.isBlank()) {
        entries.add(entry);
      }
    }
    for (Class<?> type : List.of(LockChild.class, OsLockRegistry.class, NullMarked.class, LoggerFactory.class)) {
      entries.add(location(type).toString());
    }
    return String.join(System.getProperty("path.separator"), entries);
  }

  /** Returns the directory or jar {@code type} was loaded from. */
  static Path location(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("Cannot locate the classes of " + type, e);
    }
  }
}
