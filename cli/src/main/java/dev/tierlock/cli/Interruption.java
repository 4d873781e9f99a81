package dev.tierlock.cli;

import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What an interrupted command (Ctrl-C, SIGINT, SIGTERM) says as the JVM shuts down: {@code
 * tierlock: interrupted: ...} on stderr, with what is true of the lease (released, or left to
 * expire) and of the change (nothing published; sent, its outcome judged by the next run; or
 * published). The lease itself is released by the library's own shutdown hook; this one waits for
 * that release, as the datastore's calls show it ({@link TracedDatastore}), and then says so. One
 * hook per JVM, installed with the first datastore a command opens; it says nothing once the
 * command has finished ({@link #finished}), so an exit after a run is silent. The exit code stays
 * the JVM's (130 for SIGINT). Thread-safe.
 */
final class Interruption {

  /** How long the hook waits for the lease's release: a little longer than the library's hook waits for it. */
  static final long WAIT_MILLIS = 6_000;

  private static final AtomicReference<Watched> CURRENT = new AtomicReference<>();
  private static final AtomicBoolean INSTALLED = new AtomicBoolean();

  private Interruption() {}

  /** A command's datastore and where it says things. */
  private record Watched(TracedDatastore store, PrintWriter err) {}

  /** Watches the command that runs on {@code store} until {@link #finished}: an interruption is said on {@code err}. */
  static void watch(TracedDatastore store, PrintWriter err) {
    CURRENT.set(new Watched(store, err));
    if (INSTALLED.compareAndSet(false, true)) {
      try {
        Runtime.getRuntime().addShutdownHook(new Thread(Interruption::shuttingDown, "tierlock-interrupted"));
      } catch (IllegalStateException alreadyShuttingDown) {
        // the JVM is going: nothing to watch
      }
    }
  }

  /** The command finished: a shutdown from now on is no interruption. */
  static void finished() {
    CURRENT.set(null);
  }

  private static void shuttingDown() {
    Watched watched = CURRENT.getAndSet(null);
    if (watched != null) {
      watched.err().println("tierlock: " + report(watched.store(), WAIT_MILLIS));
      watched.err().flush();
    }
  }

  /** {@return the line an interruption of the command on {@code store} says, having waited up to {@code millis} for the lease} */
  static String report(TracedDatastore store, long millis) {
    boolean released;
    boolean wasHeld = store.held();
    try {
      released = store.awaitReleased(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      released = !store.held();
    }
    String lease = !wasHeld ? "" : released ? "released the lease, "
        : "the lease could not be released in time (it expires after its ttl), ";
    String change = switch (store.publish()) {
      case NONE, REFUSED -> "nothing published";
      case SENT -> "the change was sent and its outcome is judged by the next run on this checkout";
      case LANDED -> "the change was published (lockfile version " + store.landed().orElse("?") + ")";
    };
    return "interrupted: " + lease + change;
  }
}
