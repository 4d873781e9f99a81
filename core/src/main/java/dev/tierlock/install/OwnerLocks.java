package dev.tierlock.install;

import dev.tierlock.internal.OsLockRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Who owns an install journal: the process holding the OS lock of {@code <directory>/<ownerId>.lock}
 * ({@link OsLockRegistry}), taken when the install is staged and released once it is committed or
 * rolled back. The operating system frees the lock when the process dies, however it dies, so a
 * journal is orphaned exactly when its owner's lock can be taken: no pid is read, none can be
 * reused. Within this JVM the registry's turn keeps other threads out too, and the owning thread
 * is told it is its own ({@link OsLockRegistry.Attempt.Reentered}). Thread-safe.
 */
final class OwnerLocks {

  private final Path directory;
  private final Clock clock;

  /**
   * Creates the owner locks kept in {@code directory} (the checkout's state directory's {@code
   * install-owners}, outside anything synced).
   */
  OwnerLocks(Path directory, Clock clock) {
    this.directory = directory.toAbsolutePath().normalize();
    this.clock = clock;
  }

  /** One owner's held lock; closing it deletes the lock file, then releases the lock. */
  static final class Held implements AutoCloseable {
    private final Path file;
    private final OsLockRegistry.Held lock;

    private Held(Path file, OsLockRegistry.Held lock) {
      this.file = file;
      this.lock = lock;
    }

    @Override
    public void close() {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // a lock file left behind names a dead owner once released: harmless, swept with its journal
      }
      try {
        lock.release();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot release the owner lock " + file, e);
      }
    }
  }

  /**
   * Takes the lock of a new owner.
   *
   * @throws InstallException ({@code install_failed}) if it cannot be taken (it is fresh: only a broken file system
   *     refuses it)
   */
  Held hold(String ownerId, String extension) {
    Path file = file(ownerId);
    try {
      Files.createDirectories(directory);
      OsLockRegistry.Attempt attempt = OsLockRegistry.shared().tryAcquire(file, "the install of " + extension, clock);
      if (attempt instanceof OsLockRegistry.Attempt.Acquired acquired) {
        return new Held(file, acquired.lock());
      }
      throw InstallException.failed(extension, "its owner lock " + file + " is held already", null);
    } catch (IOException e) {
      throw InstallException.failed(extension, "cannot take its owner lock " + file + " (" + e.getMessage() + ")", e);
    }
  }

  /**
   * Returns whether the owner {@code ownerId} is alive: a thread of this JVM or another process
   * holds its lock. A free lock (or no lock file) means the owner is gone; its file is then deleted.
   */
  boolean isAlive(String ownerId) {
    Path file = file(ownerId);
    if (!Files.exists(file)) {
      return false;
    }
    try {
      OsLockRegistry.Attempt attempt = OsLockRegistry.shared().tryAcquire(file, "a look at an install owner", clock);
      if (attempt instanceof OsLockRegistry.Attempt.Acquired acquired) {
        new Held(file, acquired.lock()).close();
        return false;
      }
      return true;
    } catch (IOException e) {
      // cannot tell: count it alive, so nothing of a possibly running install is touched
      return true;
    }
  }

  private Path file(String ownerId) {
    if (!ownerId.matches("[A-Za-z0-9-]{1,64}")) {
      throw new IllegalArgumentException("Cannot use owner id \"" + ownerId + "\": letters, digits and - only");
    }
    return directory.resolve(ownerId + ".lock");
  }
}
