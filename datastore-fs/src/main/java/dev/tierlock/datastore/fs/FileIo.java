package dev.tierlock.datastore.fs;

import dev.tierlock.internal.AtomicFileWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The file steps of a change that can fail half-way or cost a disk flush: filling a staged temp
 * file, attaching its metadata, forcing it, moving it over its target, forcing a directory. A seam,
 * so tests can make a real write run out of space, stop between two steps, or count the flushes
 * and renames of a change; {@link #STANDARD} is what the datastore uses.
 */
interface FileIo {

  /** Writes through the channel, forces it to disk, and moves with {@code ATOMIC_MOVE}. */
  FileIo STANDARD = new FileIo() {};

  /**
   * Copies all of {@code in} into the empty temp file's channel and forces it to disk.
   *
   * @throws IOException if reading or writing fails
   */
  default void fill(InputStream in, FileChannel temp) throws IOException {
    copy(in, temp);
    temp.force(true);
  }

  /**
   * Copies all of {@code in} into the empty temp file's channel, not forced: {@link #force} follows
   * once its metadata is attached.
   *
   * @throws IOException if reading or writing fails
   */
  default void copy(InputStream in, FileChannel temp) throws IOException {
    OutputStream out = Channels.newOutputStream(temp);
    in.transferTo(out);
    out.flush();
  }

  /**
   * Attaches {@code value} to the file as its extended attribute {@code name} ({@code user.} is
   * implied), where the file system keeps such attributes.
   *
   * @return false when the file system does not support them (nothing was attached)
   * @throws IOException if attaching fails for another reason
   */
  default boolean attach(Path file, String name, byte[] value) throws IOException {
    return ExtendedAttributes.write(file, name, value);
  }

  /**
   * Forces a file's bytes and attributes (its extended attributes among them) to disk.
   *
   * @throws IOException if forcing fails
   */
  default void force(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
  }

  /**
   * Forces a directory's entries to disk ({@link AtomicFileWriter#forceDirectory}).
   *
   * @throws IOException if forcing fails on a platform that supports it
   */
  default void forceDirectory(Path dir) throws IOException {
    AtomicFileWriter.forceDirectory(dir);
  }

  /**
   * Moves the finished temp file over {@code target} atomically, replacing it.
   *
   * @throws IOException if the move fails
   */
  default void move(Path temp, Path target) throws IOException {
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * Moves {@code source} to {@code target}, which must not exist, atomically (a delete's move into
   * the claim's directory).
   *
   * @throws IOException if the move fails
   */
  default void moveAway(Path source, Path target) throws IOException {
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
  }
}
