package dev.tierlock.internal;

import java.io.IOException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Opens the one channel an {@link OsLockRegistry} keeps per lock file. {@link #STANDARD} is the only
 * opener outside tests; tests inject failures through their own.
 */
@FunctionalInterface
public interface ChannelOpener {

  /**
   * Opens {@code file} for reading and writing, creating it if missing. An {@link
   * AsynchronousFileChannel}, because a {@link java.nio.channels.FileChannel} is closed by an
   * interrupt that arrives while a thread reads, writes or truncates through it, and closing any
   * channel of a file drops this process's lock on it; an asynchronous channel ignores interrupts.
   */
  ChannelOpener STANDARD = file -> AsynchronousFileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
      StandardOpenOption.WRITE);

  /**
   * Opens {@code file} (canonical, in an existing directory) for reading and writing, creating it.
   *
   * @param file the lock file
   * @return the open channel
   * @throws IOException if it cannot be opened
   * @throws UnsupportedOperationException if its file system provider cannot open such a channel
   *     (the registry then locks in this JVM only)
   */
  AsynchronousFileChannel open(Path file) throws IOException;
}
