package dev.tierlock;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Releases the leases this class loader's Tierlock still holds when the JVM shuts down in order
 * (SIGTERM, SIGINT, {@code System.exit}): a stopped server frees the global lock at once instead
 * of keeping every peer waiting until the lease goes stale. One shutdown hook, installed with the
 * first lease; each release is the lease's own conditional delete, so a lease a peer has taken over
 * is left alone. A JVM killed outright (SIGKILL, a crash) runs no hook: its lease expires after its
 * ttl, as before. Thread-safe.
 */
final class ShutdownRelease {

  /** How long the hook waits in all for the releases before the JVM goes on shutting down. */
  static final long WAIT_MILLIS = 5_000;

  private static final Set<LeaseHolding> HELD = ConcurrentHashMap.newKeySet();
  private static final AtomicBoolean INSTALLED = new AtomicBoolean();

  private ShutdownRelease() {}

  /** Registers a lease just acquired; installs the hook with the first. */
  static void register(LeaseHolding lease) {
    if (INSTALLED.compareAndSet(false, true)) {
      try {
        Runtime.getRuntime().addShutdownHook(new Thread(ShutdownRelease::releaseAll, "tierlock-release-leases"));
      } catch (IllegalStateException alreadyShuttingDown) {
        return;
      }
    }
    HELD.add(lease);
  }

  /** Forgets a lease released (or given up) by its holder. */
  static void unregister(LeaseHolding lease) {
    HELD.remove(lease);
  }

  /** Releases every lease still registered, each on its own thread, waiting at most {@link #WAIT_MILLIS} in all. */
  static void releaseAll() {
    List<Thread> threads = new ArrayList<>();
    for (LeaseHolding lease : List.copyOf(HELD)) {
      Thread thread = new Thread(lease::releaseAtShutdown, "tierlock-release " + lease);
      thread.setDaemon(true);
      thread.start();
      threads.add(thread);
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
    for (Thread thread : threads) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        return;
      }
      try {
        thread.join(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
