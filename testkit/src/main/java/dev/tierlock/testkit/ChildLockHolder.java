package dev.tierlock.testkit;

import dev.tierlock.Sleeper;
import dev.tierlock.internal.HeldFileLock;
import dev.tierlock.internal.LockAttempt;
import dev.tierlock.internal.LockWait;
import dev.tierlock.internal.OsLockRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.NullMarked;

/**
 * A second JVM that holds a local lock file through Tierlock's OS-lock registry, so that a contract
 * can prove that another process's lock excludes a checkout. Its {@link #main} takes the lock,
 * prints {@code locked}, waits for a line, releases the lock and prints {@code released}. Every wait
 * for it is bounded by {@link #WAIT_SECONDS}, a bound only a broken test reaches; closing it kills
 * the process if it still runs.
 */
final class ChildLockHolder implements AutoCloseable {

  /** The bound on any single wait for the child. */
  static final long WAIT_SECONDS = 60;

  private final Process process;
  private final BufferedReader stdout;
  private final Writer stdin;

  private ChildLockHolder(Process process) {
    this.process = process;
    this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /**
   * Starts a JVM that takes the lock of {@code lockFile}, saying it guards {@code guards}, and
   * returns once it holds it.
   *
   * @throws IOException if the JVM cannot be started or talked to
   * @throws IllegalStateException if it does not report the lock held
   */
  static ChildLockHolder start(Path lockFile, String guards) throws IOException {
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
        "-XX:TieredStopAtLevel=1", "-cp", classpath(), "-Dslf4j.internal.verbosity=ERROR", ChildLockHolder.class.getName(),
        lockFile.toString(), guards);
    ChildLockHolder child = new ChildLockHolder(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT)
        .start());
    child.expect("locked");
    return child;
  }

  /** Returns the child's process id. */
  long pid() {
    return process.pid();
  }

  /**
   * Makes the child release the lock and waits until it has exited.
   *
   * @throws IOException if the child cannot be talked to
   * @throws InterruptedException if interrupted while waiting for it
   * @throws IllegalStateException if it does not release and exit cleanly within the bound
   */
  void release() throws IOException, InterruptedException {
    stdin.write("release\n");
    stdin.flush();
    expect("released");
    if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("Cannot stop the lock-holding JVM: it did not exit cleanly within " + WAIT_SECONDS + " s");
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }

  private void expect(String line) throws IOException {
    // the child prints nothing but these lines; a dead child ends the stream, so this read is bounded
    String seen = stdout.readLine();
    if (!line.equals(seen)) {
      throw new IllegalStateException("Cannot use the lock-holding JVM: expected \"" + line + "\", got " + seen);
    }
  }

  /**
   * Takes the lock of the file {@code args[0]} for {@code args[1]}, prints {@code locked}, waits for
   * a line on standard input, releases it and prints {@code released}.
   *
   * @throws Exception if the lock cannot be taken within the bound
   */
  public static void main(String[] args) throws Exception {
    Clock clock = Clock.systemUTC();
    LockAttempt attempt = OsLockRegistry.shared().acquire(Path.of(args[0]), args[1],
        LockWait.until(clock.instant().plusSeconds(WAIT_SECONDS), clock, Sleeper.SYSTEM, Duration.ofMillis(5)));
    if (!(attempt instanceof LockAttempt.Acquired acquired)) {
      throw new IllegalStateException("Cannot hold " + args[0] + ": " + attempt);
    }
    HeldFileLock held = acquired.lock();
    System.out.println("locked");
    System.out.flush();
    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    held.release();
    System.out.println("released");
    System.out.flush();
  }

  /** The test class path as surefire reports it (else {@code java.class.path}), plus testkit, core and JSpecify. */
  private static String classpath() {
    Set<String> entries = new LinkedHashSet<>();
    String reported = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path", ""));
    for (String entry : reported.split(System.getProperty("path.separator"))) {
      if (!entry.isBlank()) {
        entries.add(entry);
      }
    }
    for (Class<?> type : List.of(ChildLockHolder.class, OsLockRegistry.class, NullMarked.class)) {
      try {
        entries.add(Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
      } catch (URISyntaxException e) {
        throw new IllegalStateException("Cannot locate the classes of " + type, e);
      }
    }
    return String.join(System.getProperty("path.separator"), entries);
  }
}
