package dev.tierlock.datastore.fs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The two file steps of a change that can fail half-way: filling a staged temp file and moving it
 * over its target. A seam, so tests can make a real write run out of space or stop between the two
 * steps; {@link #STANDARD} is what the datastore uses.
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
    OutputStream out = Channels.newOutputStream(temp);
    in.transferTo(out);
    out.flush();
    temp.force(true);
  }

  /**
   * Moves the finished temp file over {@code target} atomically, replacing it.
   *
   * @throws IOException if the move fails
   */
  default void move(Path temp, Path target) throws IOException {
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
