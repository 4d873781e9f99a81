package dev.tierlock.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Replaces local files so that a reader sees either the old bytes or the new bytes, never a torn
 * mix, and a crash leaves no half-written target: the bytes go to a temp file in the target's own
 * directory, are forced to disk, moved over the target atomically, and the directory is forced
 * too. The temp file is deleted on any failure. Stateless and thread-safe.
 */
public final class AtomicFileWriter {

  private AtomicFileWriter() {}

  /**
   * Replaces {@code target} with {@code bytes}, creating parent directories.
   *
   * @param target the file to replace
   * @param bytes its new content
   * @throws IOException if any step fails; the target is then unchanged
   */
  public static void write(Path target, byte[] bytes) throws IOException {
    writeUnforcedRename(target, bytes);
    forceDirectory(target.toAbsolutePath().getParent());
  }

  /**
   * Replaces {@code target} with {@code bytes} as {@link #write(Path, byte[])} does, but leaves the
   * directory unforced: the caller forces it, with the other directories a series of steps changed,
   * before anything relies on the rename having survived a crash. Until then a crash leaves the old
   * file or the new one, whole (the new bytes are forced before the rename).
   *
   * @param target the file to replace
   * @param bytes its new content
   * @throws IOException if any step fails; the target is then unchanged
   */
  public static void writeUnforcedRename(Path target, byte[] bytes) throws IOException {
    Path temp = newTemp(target);
    try {
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      moveIntoUnforced(temp, target);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Replaces {@code target} with everything {@code in} yields, streaming (constant memory),
   * creating parent directories. The stream is not closed.
   *
   * @param target the file to replace
   * @param in its new content, read to its end
   * @return the number of bytes written
   * @throws IOException if reading or any write step fails; the target is then unchanged
   */
  public static long write(Path target, InputStream in) throws IOException {
    Path temp = newTemp(target);
    try {
      long written;
      try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE);
          OutputStream out = Channels.newOutputStream(channel)) {
        written = in.transferTo(out);
        out.flush();
        channel.force(true);
      }
      moveInto(temp, target);
      return written;
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Creates an empty temp file beside {@code target} (same directory, so the final move is a
   * rename), named {@code .<target name>.<uuid>.tmp}; the caller fills it, then calls {@link
   * #moveInto}.
   *
   * @param target the file the temp file will replace
   * @return the temp file, empty
   * @throws IOException if the directory or file cannot be created
   */
  public static Path newTemp(Path target) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path temp = dir.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
    Files.createFile(temp);
    return temp;
  }

  /**
   * Moves a finished temp file (already forced to disk) over {@code target} atomically, then forces
   * the directory so the rename itself survives a crash.
   *
   * @param temp the finished temp file, beside {@code target}
   * @param target the file to replace
   * @throws IOException if the move fails; the target is then unchanged
   */
  public static void moveInto(Path temp, Path target) throws IOException {
    moveIntoUnforced(temp, target);
    forceDirectory(target.toAbsolutePath().getParent());
  }

  /**
   * Moves a finished temp file over {@code target} atomically, forcing nothing: for a file whose
   * every reader verifies it, so that a copy a crash cut short or lost is only read again.
   *
   * @param temp the finished temp file, beside {@code target}
   * @param target the file to replace
   * @throws IOException if the move fails; the target is then unchanged
   */
  public static void moveIntoUnforced(Path temp, Path target) throws IOException {
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("Cannot replace " + target + " atomically: the filesystem does not support atomic moves", e);
    }
  }

  /**
   * Forces a directory's entries to disk where the platform allows it (POSIX); elsewhere a no-op.
   *
   * @param dir the directory
   * @throws IOException if forcing fails on a platform that supports it
   */
  public static void forceDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (FileSystemException | UnsupportedOperationException e) {
      // Windows and some NIO providers cannot open or force a directory; the rename is still atomic.
    }
  }
}
