package dev.tierlock.testkit;

import dev.tierlock.DistributedLock;
import dev.tierlock.LockOptions;
import dev.tierlock.Sleeper;
import dev.tierlock.Tierlock;
import dev.tierlock.internal.OsLockRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URI;
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
import org.jspecify.annotations.Nullable;

/**
 * A second JVM that holds a lock, so that a test can prove what another process's lock does: a
 * local lock file through Tierlock's OS-lock registry ({@link #start}, for the contracts), or the
 * datastore global lease of a datastore it opens by URI ({@link #holdingLease}, for a datastore
 * module's tests, whose test class path brings the datastore). Its {@link #main} takes the lock,
 * prints {@code locked}, waits for a line, releases the lock and prints {@code released}; {@link
 * #kill()} ends it with SIGKILL instead, as a crash would. Every wait for it is bounded by {@link
 * #WAIT_SECONDS}, a bound only a broken test reaches; closing it kills the process if it still
 * runs. Not thread-safe.
 */
public final class ChildLockHolder implements AutoCloseable {

  /** The bound on any single wait for the child. */
  static final long WAIT_SECONDS = 60;

  private static final String LEASE = "--lease";

  private static final String AND_CHECKOUT_LOCK = "--and-checkout-lock";

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
   * @param lockFile the lock file, such as a checkout's {@code transaction.lock}
   * @param guards what the child says the lock guards (written into the lock file)
   * @return the running child, holding the lock
   * @throws IOException if the JVM cannot be started or talked to
   * @throws IllegalStateException if it does not report the lock held
   */
  public static ChildLockHolder start(Path lockFile, String guards) throws IOException {
    return launch(lockFile.toString(), guards);
  }

  /**
   * Starts a JVM that opens the datastore {@code datastore} names, with a checkout in {@code
   * checkout}, takes its global lease (no namespace) with ttl {@code ttl} under this host's own
   * identity ({@link dev.tierlock.LockIdentity#current()}), and returns once it holds it.
   *
   * @param datastore the datastore's URI, such as a {@code file:} URI; its module must be on the test
   *     class path
   * @param checkout the child's checkout directory
   * @param ttl the lease's ttl
   * @return the running child
   * @throws IOException if the JVM cannot be started or talked to
   * @throws IllegalStateException if it does not report the lease held
   */
  public static ChildLockHolder holdingLease(URI datastore, Path checkout, Duration ttl) throws IOException {
    return holdingLease(List.of(), datastore, checkout, ttl);
  }

  /**
   * As {@link #holdingLease(URI, Path, Duration)}, with the child JVM started through {@code
   * wrapper}, a command that runs the command line after it (such as {@code unshare --pid --fork
   * --mount-proc --kill-child}, to hold the lease from another pid namespace of this host). The
   * wrapper must pass standard input and output through, and end the JVM when it is killed itself.
   *
   * @param wrapper the wrapper's command line; empty for none
   * @param datastore the datastore's URI; its module must be on the test class path
   * @param checkout the child's checkout directory
   * @param ttl the lease's ttl
   * @return the running child ({@link #pid()} is the wrapper's)
   * @throws IOException if the wrapper or the JVM cannot be started or talked to
   * @throws IllegalStateException if it does not report the lease held
   */
  public static ChildLockHolder holdingLease(List<String> wrapper, URI datastore, Path checkout, Duration ttl)
      throws IOException {
    return launch(wrapper, LEASE, datastore.toString(), checkout.toString(), Long.toString(ttl.toMillis()));
  }

  /**
   * As {@link #holdingLease(URI, Path, Duration)}, and then the checkout's transaction lock too
   * ({@code <state>/transaction.lock}, as a transaction on that checkout holds it after the lease),
   * so that a test can stop (SIGSTOP) a process that blocks both.
   *
   * @param datastore the datastore's URI; its module must be on the test class path
   * @param checkout the child's checkout directory, whose transaction lock it takes
   * @param ttl the lease's ttl
   * @return the running child, holding both
   * @throws IOException if the JVM cannot be started or talked to
   * @throws IllegalStateException if it does not report both held
   */
  public static ChildLockHolder holdingLeaseAndCheckoutLock(URI datastore, Path checkout, Duration ttl) throws IOException {
    return launch(List.of(), LEASE, datastore.toString(), checkout.toString(), Long.toString(ttl.toMillis()),
        AND_CHECKOUT_LOCK);
  }

  private static ChildLockHolder launch(String... args) throws IOException {
    return launch(List.of(), args);
  }

  private static ChildLockHolder launch(List<String> wrapper, String... args) throws IOException {
    List<String> command = new java.util.ArrayList<>(wrapper);
    command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classpath(), "-Dslf4j.internal.verbosity=ERROR",
        ChildLockHolder.class.getName()));
    command.addAll(List.of(args));
    ChildLockHolder child = new ChildLockHolder(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT)
        .start());
    try {
      child.expect("locked");
    } catch (IOException | RuntimeException e) {
      child.close();
      throw e;
    }
    return child;
  }

  /**
   * Stops the child (SIGSTOP), as a holder stopped by a debugger or job control: it keeps its locks
   * and does nothing until {@link #resume()}. POSIX only.
   *
   * @throws IOException if {@code kill} cannot be run
   * @throws InterruptedException if interrupted while waiting for {@code kill}
   * @throws IllegalStateException if {@code kill} fails
   */
  public void stop() throws IOException, InterruptedException {
    signal("-STOP");
  }

  /**
   * Resumes a child {@link #stop() stopped} before (SIGCONT).
   *
   * @throws IOException if {@code kill} cannot be run
   * @throws InterruptedException if interrupted while waiting for {@code kill}
   * @throws IllegalStateException if {@code kill} fails
   */
  public void resume() throws IOException, InterruptedException {
    signal("-CONT");
  }

  private void signal(String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
    if (!kill.waitFor(WAIT_SECONDS, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("Cannot send " + signal + " to the lock-holding JVM " + process.pid());
    }
  }

  /** {@return the child's process id} */
  public long pid() {
    return process.pid();
  }

  /**
   * Kills the child at once (SIGKILL, as a crash would: no shutdown hook runs) and waits until the
   * operating system has reaped it, so that its pid names no process afterwards.
   *
   * @throws InterruptedException if interrupted while waiting for it
   * @throws IllegalStateException if it is not gone within the bound
   */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
      throw new IllegalStateException("Cannot kill the lock-holding JVM " + process.pid() + " within " + WAIT_SECONDS + " s");
    }
  }

  /**
   * Makes the child release the lock and waits until it has exited.
   *
   * @throws IOException if the child cannot be talked to
   * @throws InterruptedException if interrupted while waiting for it
   * @throws IllegalStateException if it does not release and exit cleanly within the bound
   */
  public void release() throws IOException, InterruptedException {
    stdin.write("release\n");
    stdin.flush();
    expect("released");
    if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("Cannot stop the lock-holding JVM: it did not exit cleanly within " + WAIT_SECONDS + " s");
    }
  }

  /** Kills the child if it still runs. */
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
   * Takes the lock of the file {@code args[0]} for {@code args[1]} (or, after {@code --lease}, the
   * global lease of the datastore {@code args[1]} from the checkout {@code args[2]} with a ttl of
   * {@code args[3]} ms, and then, after {@code --and-checkout-lock}, that checkout's transaction
   * lock), prints {@code locked}, waits for a line on standard input, releases it and
   * prints {@code released}.
   *
   * @param args what to hold
   * @throws Exception if the lock cannot be taken within the bound
   */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals(LEASE)) {
      holdLease(URI.create(args[1]), Path.of(args[2]), Duration.ofMillis(Long.parseLong(args[3])),
          args.length > 4 && args[4].equals(AND_CHECKOUT_LOCK));
      return;
    }
    OsLockRegistry.Held held = osLock(Path.of(args[0]), args[1]);
    System.out.println("locked");
    System.out.flush();
    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    held.release();
    System.out.println("released");
    System.out.flush();
  }

  /** Takes the OS lock of {@code lockFile} for {@code guards}, waiting up to the bound. */
  private static OsLockRegistry.Held osLock(Path lockFile, String guards) throws IOException, InterruptedException {
    Clock clock = Clock.systemUTC();
    OsLockRegistry.Attempt attempt = OsLockRegistry.shared().acquire(lockFile, guards,
        OsLockRegistry.Wait.until(clock.instant().plusSeconds(WAIT_SECONDS), clock, Sleeper.SYSTEM::sleep,
            Duration.ofMillis(5)));
    if (!(attempt instanceof OsLockRegistry.Attempt.Acquired acquired)) {
      throw new IllegalStateException("Cannot hold " + lockFile + ": " + attempt);
    }
    return acquired.lock();
  }

  private static void holdLease(URI datastore, Path checkout, Duration ttl, boolean checkoutLock)
      throws IOException, InterruptedException {
    LockOptions options = LockOptions.DEFAULTS.withTtl(ttl).withMaxWait(Duration.ofSeconds(WAIT_SECONDS));
    try (Tierlock tierlock = Tierlock.builder().datastore(datastore).checkout(checkout).lockOptions(options).build()) {
      DistributedLock.Held lease = tierlock.globalLock().acquire();
      OsLockRegistry.@Nullable Held transaction = checkoutLock
          ? osLock(tierlock.stateDirectory().resolve("transaction.lock"), "transaction") : null;
      System.out.println("locked");
      System.out.flush();
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      if (transaction != null) {
        transaction.release();
      }
      lease.release();
      System.out.println("released");
      System.out.flush();
    }
  }

  /**
   * The test class path as surefire reports it (else {@code java.class.path}), and the module path
   * when the tests run on it (a datastore module tested in its own module: core and what core
   * requires are modules there), plus testkit, core and JSpecify: the child runs them all on its
   * class path.
   */
  private static String classpath() {
    Set<String> entries = new LinkedHashSet<>();
    String reported = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path", ""))
        + System.getProperty("path.separator") + System.getProperty("jdk.module.path", "");
    for (String entry : reported.split(System.getProperty("path.separator"))) {
      if (!entry.isBlank()) {
        entries.add(entry);
      }
    }
    // core is located by a public class: the parent never loads the registry, which only the child uses
    for (Class<?> type : List.of(ChildLockHolder.class, Tierlock.class, NullMarked.class)) {
      try {
        entries.add(Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
      } catch (URISyntaxException e) {
        throw new IllegalStateException("Cannot locate the classes of " + type, e);
      }
    }
    return String.join(System.getProperty("path.separator"), entries);
  }
}
