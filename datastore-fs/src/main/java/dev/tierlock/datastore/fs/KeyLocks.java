package dev.tierlock.datastore.fs;

import dev.tierlock.Sleeper;
import dev.tierlock.internal.Backoff;
import dev.tierlock.internal.OsLockRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-key OS lock that earlier versions of this datastore take around a change ({@code
 * .tierlock/locks/<sha256 of key>.lock}, through core's {@link OsLockRegistry}), taken by a writer
 * of this version beside its claim ({@link KeyClaims}) so that the two versions exclude each other
 * on one root:
 *
 * <ul>
 *   <li>a lock whose holder (as it wrote itself into the lock file) names a claim is held by a
 *       writer of this version; the caller holds the key's claim, so that writer's claim was taken
 *       over and its change can no longer land: it is not waited for ({@link Taken.Skipped});
 *   <li>a lock an earlier version's writer holds is waited for, polling it (pauses of 1 ms doubling
 *       to 50 ms on the injected sleeper), until the caller's deadline, then reported busy. Earlier
 *       versions have no claims, so nothing would refuse such a writer's change if it resumed after
 *       a takeover: it is never taken over, and a stopped earlier-version writer blocks the key as it
 *       always did (each call ends busy after its lock timeout).
 * </ul>
 *
 * The OS frees the lock of a process that dies. Lock files are never deleted (deleting one would race
 * with a process that has it open). Thread-safe.
 */
final class KeyLocks {

  private static final Logger LOG = LoggerFactory.getLogger(KeyLocks.class);

  private static final Duration FIRST_PAUSE = Duration.ofMillis(1);
  private static final Duration MAX_PAUSE = Duration.ofMillis(50);
  private static final Pattern CLAIM =
      Pattern.compile("\\bclaim [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} of object ");

  private final OsLockRegistry registry = OsLockRegistry.shared();
  private final Clock clock;
  private final Sleeper sleeper;

  KeyLocks(FileSystemDatastoreOptions options) {
    this.clock = options.clock();
    this.sleeper = options.sleeper();
  }

  /** How taking the lock ended. */
  sealed interface Taken {
    /**
     * The lock is held.
     *
     * @param held the held lock
     */
    record Locked(Held held) implements Taken {}

    /** The caller goes on without the lock: its holder is a writer of this version whose claim was taken over. */
    record Skipped() implements Taken {}

    /**
     * An earlier version's writer held it until the deadline.
     *
     * @param holder who held it, as the lock file names it
     */
    record Busy(String holder) implements Taken {}
  }

  /**
   * Takes the lock of {@code lockFile}, polling it until {@code deadline} (one attempt when it has
   * passed), and writes into the file that its holder guards {@code guards} (which name the
   * caller's claim).
   *
   * @return the held lock, skipped, or busy
   * @throws IOException if the lock file cannot be opened, locked or written
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws IllegalStateException if this thread holds the lock already
   */
  Taken acquire(Path lockFile, String guards, Instant deadline) throws IOException, InterruptedException {
    Backoff pauses = new Backoff(FIRST_PAUSE, MAX_PAUSE, Backoff.NO_JITTER);
    while (true) {
      OsLockRegistry.Attempt attempt = registry.tryAcquire(lockFile, guards, clock);
      if (attempt instanceof OsLockRegistry.Attempt.Acquired acquired) {
        return new Taken.Locked(new Held(acquired.lock()));
      }
      if (!(attempt instanceof OsLockRegistry.Attempt.Busy busy)) {
        throw new IllegalStateException("Cannot lock " + lockFile + ": this thread holds it already");
      }
      String holder = busy.holder().orElse("a writer that names no holder");
      if (CLAIM.matcher(holder).find()) {
        LOG.debug("Going on without the OS lock {}: its holder, {}, lost its claim to this writer", lockFile, holder);
        return new Taken.Skipped();
      }
      Duration left = Duration.between(clock.instant(), deadline);
      if (left.isNegative() || left.isZero()) {
        return new Taken.Busy(holder);
      }
      sleeper.sleep(pauses.next(left));
    }
  }

  /**
   * Returns who holds the lock of a lock file, for messages, as its holder wrote it into the file.
   *
   * @return the holder, or empty when the file names none or cannot be read
   */
  Optional<String> holder(Path lockFile) {
    try {
      return registry.holder(lockFile);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** A held lock; closing it releases the OS lock, then the in-JVM turn. */
  static final class Held implements AutoCloseable {
    private final OsLockRegistry.Held lock;

    private Held(OsLockRegistry.Held lock) {
      this.lock = lock;
    }

    /**
     * Releases the lock; a second call does nothing.
     *
     * @throws IOException if emptying or unlocking the lock file fails (the lock is released all the
     *     same)
     */
    @Override
    public void close() throws IOException {
      lock.release();
    }
  }
}
