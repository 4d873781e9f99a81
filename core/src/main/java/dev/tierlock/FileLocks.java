package dev.tierlock;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
