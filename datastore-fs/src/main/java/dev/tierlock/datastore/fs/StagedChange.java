package dev.tierlock.datastore.fs;

import dev.tierlock.internal.AtomicFileWriter;
import dev.tierlock.datastore.fs.FileSystemFailures.Phase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One write or delete in progress: stages bytes in temp files of the internal temp directory
 * ({@link TempFiles}), moves them over their targets, and records how far it got (the {@link
 * Phase} that decides whether a failure can have changed anything). Closing it deletes every temp
 * file still staged, so a failed change leaves nothing behind; a crash can leave one in the temp
 * directory, which a later sweep deletes. Not thread-safe: one per call.
 */
final class StagedChange implements AutoCloseable {

  private static final int MOVE_ATTEMPTS = 3;

  private final FileIo io;
  private final TempFiles temps;
  private final List<Path> staged = new ArrayList<>();
  private Phase phase = Phase.PREPARE;

  StagedChange(FileIo io, TempFiles temps) {
    this.io = io;
    this.temps = temps;
  }

  /** Returns how far the change got. */
  Phase phase() {
    return phase;
  }

  /** Records that the change moved on to {@code next}. */
  void enter(Phase next) {
    phase = next;
  }

  /**
   * A temp file holding staged bytes.
   *
   * @param temp the temp file, in the internal temp directory
   * @param size the number of bytes staged
   */
  record Staged(Path temp, long size) {}

  /**
   * Writes everything {@code in} yields to a new temp file, forced to disk; no target is touched.
   *
   * @throws IOException if the temp file cannot be created or written
   */
  Staged stage(InputStream in) throws IOException {
    Path temp = temps.create();
    staged.add(temp);
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      io.fill(in, channel);
      return new Staged(temp, channel.size());
    }
  }

  /** Deletes a staged temp file that turned out not to be needed. */
  void discard(Staged temp) throws IOException {
    Files.deleteIfExists(temp.temp());
    staged.remove(temp.temp());
  }

  /**
   * Moves a staged file over {@code target} as a step before the change is published (the phase
   * stays as it is), then forces the target's directory.
   */
  void install(Staged temp, Path target) throws IOException {
    moveIn(temp, target, phase);
    AtomicFileWriter.forceDirectory(target.getParent());
  }

  /**
   * Publishes the change: moves a staged file over {@code target} ({@link Phase#COMMIT}), then
   * forces the target's directory ({@link Phase#DURABLE}).
   */
  void publish(Staged temp, Path target) throws IOException {
    moveIn(temp, target, Phase.COMMIT);
    phase = Phase.DURABLE;
    AtomicFileWriter.forceDirectory(target.getParent());
  }

  /**
   * Creates the target's directory (nothing has changed yet), then moves the temp file over the
   * target in phase {@code during}. A delete of the last object of that directory may prune it
   * between the two steps; the move then fails with the temp file still in place, which proves it
   * did not happen, so the directory is made again and the move retried.
   */
  private void moveIn(Staged temp, Path target, Phase during) throws IOException {
    Path directory = target.getParent();
    Phase before = phase;
    for (int attempt = 1; ; attempt++) {
      phase = before;
      Files.createDirectories(directory);
      phase = during;
      try {
        io.move(temp.temp(), target);
        staged.remove(temp.temp());
        return;
      } catch (NoSuchFileException e) {
        if (attempt == MOVE_ATTEMPTS || Files.isDirectory(directory) || !Files.exists(temp.temp())) {
          throw e;
        }
      }
    }
  }

  /**
   * Deletes the now empty directories from {@code dir} up to, not including, {@code root}, so a key
   * that was only a prefix can become an object again; stops at the first directory that is not
   * empty.
   */
  static void pruneEmpty(Path dir, Path root) throws IOException {
    for (Path d = dir; d != null && d.startsWith(root) && !d.equals(root); d = d.getParent()) {
      try {
        Files.delete(d);
      } catch (DirectoryNotEmptyException | NoSuchFileException e) {
        return; // still in use, or already gone: nothing more to tidy
      }
    }
  }

  /**
   * Deletes the temp files still staged.
   *
   * @throws IOException if one cannot be deleted (it stays in the temp directory for a later sweep)
   */
  @Override
  public void close() throws IOException {
    @Nullable IOException failure = null;
    for (Path temp : staged) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    staged.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
