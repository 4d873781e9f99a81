package dev.tierlock.datastore.s3;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The test's handle on one {@link S3PeerProcess} JVM: started on this JVM's class path, its
 * standard output copied line by line to {@code <name>.out} (and its protocol lines handed to
 * {@link #awaitLine}), its standard error written to {@code <name>.err}, its standard input the
 * test's channel to it. Every wait is bounded and fails with the peer's output; {@link #close()}
 * destroys the process if it still runs. Not thread-safe.
 */
final class PeerProcess implements AutoCloseable {

  /** What starts the lines the test waits for; every other line (changes, log messages) is only copied. */
  static final String PROTOCOL = "peer ";

  private static final String END = "\u0000end";

  private final String name;
  private final Process process;
  private final Path out;
  private final Path err;
  private final Writer commands;
  private final BlockingQueue<String> protocol = new LinkedBlockingQueue<>();
  private final Thread copier;

  private PeerProcess(String name, Process process, Path out, Path err) {
    this.name = name;
    this.process = process;
    this.out = out;
    this.err = err;
    this.commands = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
    this.copier = new Thread(this::copyOutput, "peer-" + name + "-stdout");
    copier.setDaemon(true);
    copier.start();
  }

  /**
   * Starts {@link S3PeerProcess} with {@code arguments} in a new JVM whose output files go to
   * {@code directory}; {@code properties} become {@code -D} options.
   */
  static PeerProcess start(String name, List<String> properties, List<String> arguments, Path directory)
      throws IOException {
    Path out = directory.resolve(name + ".out");
    Path err = directory.resolve(name + ".err");
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k"));
    properties.forEach(p -> command.add("-D" + p));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), S3PeerProcess.class.getName()));
    command.addAll(arguments);
    Process process = new ProcessBuilder(command)
        .redirectOutput(ProcessBuilder.Redirect.PIPE)
        .redirectError(err.toFile())
        .start();
    return new PeerProcess(name, process, out, err);
  }

  /** Returns the peer's name. */
  String name() {
    return name;
  }

  /**
   * Waits for the peer to print the protocol line {@code expected} (or a line starting with it and a
   * space).
   *
   * @throws AssertionError with the peer's output if it prints another protocol line, ends, or
   *     takes longer than {@code timeout}
   */
  String awaitLine(String expected, Duration timeout) throws InterruptedException {
    String line = protocol.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (line == null || !(line.equals(expected) || line.startsWith(expected + " "))) {
      throw new AssertionError("Peer " + name + " did not print \"" + expected + "\" within " + timeout + " (got "
          + (line == null ? "nothing" : END.equals(line) ? "the end of its output" : "\"" + line + "\"") + ")\n"
          + output());
    }
    return line;
  }

  /** Sends {@code line} to the peer's standard input. */
  void send(String line) throws IOException {
    commands.write(line + "\n");
    commands.flush();
  }

  /**
   * Waits for the peer to exit and for its output to be copied.
   *
   * @return its exit code
   * @throws AssertionError with the peer's output if it runs longer than {@code timeout}
   */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("Peer " + name + " did not exit within " + timeout + "\n" + output());
    }
    copier.join(timeout.toMillis());
    return process.exitValue();
  }

  /** Returns every line the peer printed on its standard output so far. */
  List<String> lines() {
    try {
      return Files.exists(out) ? Files.readAllLines(out, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the output of peer " + name, e);
    }
  }

  /** Returns the peer's output for a failure message: the end of its standard output and its standard error. */
  String output() {
    List<String> lines = lines();
    String err;
    try {
      err = Files.exists(this.err) ? Files.readString(this.err, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      err = "(unreadable: " + e + ")";
    }
    return "--- " + name + " stdout (last 40 of " + lines.size() + " lines, all in " + out + ") ---\n"
        + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()))
        + "\n--- " + name + " stderr ---\n" + err;
  }

  /** Destroys the process if it still runs and waits (bounded) for it to go. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    copier.join(TimeUnit.SECONDS.toMillis(10));
  }

  private void copyOutput() {
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        BufferedWriter copy = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        copy.write(line);
        copy.newLine();
        copy.flush();
        if (line.startsWith(PROTOCOL)) {
          protocol.add(line.substring(PROTOCOL.length()));
        }
      }
    } catch (IOException e) {
      protocol.add("cannot copy the output: " + e);
    } finally {
      protocol.add(END);
    }
  }
}
