package dev.tierlock;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The cross-process layer of a local lock: an exclusive OS lock on a file, which the OS frees if
 * the holding process dies. The lock file is created if missing and never deleted (deleting a
 * locked file would let two processes lock two different files of one name).
 */
interface FileLocks {

  /** OS locks through {@link FileChannel#tryLock()}. */
  FileLocks OS = file -> {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
        return Optional.empty();
      }
      return Optional.of(() -> {
        try (channel) {
          lock.release();
        }
      });
    } catch (OverlappingFileLockException e) {
      // another lock of this JVM holds it: busy, like another process
      channel.close();
      return Optional.empty();
    } catch (IOException | RuntimeException | Error e) {
      try {
        channel.close();
      } catch (IOException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  };

  /**
   * Locks {@code file} if no other process (nor another lock of this JVM) holds it.
   *
   * @return the held lock, or empty when it is busy
   * @throws IOException if the file cannot be created, opened or locked
   */
  Optional<Held> tryLock(Path file) throws IOException;

  /**
   * Locks {@code file} (creating its directory), polling through {@code sleeper} until {@code
   * deadline} on {@code clock}.
   *
   * @param start when the caller started waiting, for the time reported on timeout
   * @return the held lock
   * @throws LockTimeoutException if another holder keeps it past the deadline
   * @throws LocalFileException if the file cannot be created, opened or locked
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  default Held lockWithin(Path file, Instant start, Instant deadline, Duration poll, Clock clock, Sleeper sleeper)
      throws InterruptedException {
    while (true) {
      Optional<Held> held;
      try {
        Files.createDirectories(file.toAbsolutePath().getParent());
        held = tryLock(file);
      } catch (IOException e) {
        throw new LocalFileException("Cannot lock " + file + ": " + e.getMessage(), e);
      }
      if (held.isPresent()) {
        return held.get();
      }
      Instant now = clock.instant();
      Duration remaining = Duration.between(now, deadline);
      if (remaining.isNegative() || remaining.isZero()) {
        throw new LockTimeoutException(file.toString(), null, Duration.between(start, now));
      }
      sleeper.sleep(remaining.compareTo(poll) < 0 ? remaining : poll);
    }
  }

  /** A held file lock. */
  @FunctionalInterface
  interface Held {
    /**
     * Unlocks the file and closes it; the OS lock is gone afterwards even when this throws.
     *
     * @throws IOException if unlocking or closing fails
     */
    void release() throws IOException;
  }
}
