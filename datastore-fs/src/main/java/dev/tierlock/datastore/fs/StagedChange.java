package dev.tierlock.datastore.fs;

import dev.tierlock.AtomicFileWriter;
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
 * One write or delete in progress: stages bytes in temp files beside their targets, moves them in,
 * and records how far it got (the {@link Phase} that decides whether a failure can have changed
 * anything). Closing it deletes every temp file still staged, so a failed change leaves nothing
 * behind; a crash can leave one, which listing ignores. Not thread-safe: one per call.
 */
final class StagedChange implements AutoCloseable {

  private static final int TEMP_ATTEMPTS = 3;

  private final FileIo io;
  private final List<Path> temps = new ArrayList<>();
  private Phase phase = Phase.PREPARE;

  StagedChange(FileIo io) {
    this.io = io;
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
   * @param temp the temp file, beside its target
   * @param size the number of bytes staged
   */
  record Staged(Path temp, long size) {}

  /**
   * Writes everything {@code in} yields to a new temp file beside {@code target}, forced to disk;
   * the target is untouched.
   *
   * @throws IOException if the temp file cannot be created or written
   */
  Staged stage(Path target, InputStream in) throws IOException {
    Path temp = newTemp(target);
    temps.add(temp);
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      io.fill(in, channel);
      return new Staged(temp, channel.size());
    }
  }

  /** Deletes a staged temp file that turned out not to be needed. */
  void discard(Staged staged) throws IOException {
    Files.deleteIfExists(staged.temp());
    temps.remove(staged.temp());
  }

  /**
   * Moves a staged file over {@code target} as a step before the change is published (the phase
   * stays as it is), then forces the directory.
   */
  void install(Staged staged, Path target) throws IOException {
    io.move(staged.temp(), target);
    temps.remove(staged.temp());
    AtomicFileWriter.forceDirectory(target.getParent());
  }

  /**
   * Publishes the change: moves a staged file over {@code target} ({@link Phase#COMMIT}), then
   * forces the directory ({@link Phase#DURABLE}).
   */
  void publish(Staged staged, Path target) throws IOException {
    phase = Phase.COMMIT;
    io.move(staged.temp(), target);
    temps.remove(staged.temp());
    phase = Phase.DURABLE;
    AtomicFileWriter.forceDirectory(target.getParent());
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
   * @throws IOException if one cannot be deleted (it stays behind, ignored by listing)
   */
  @Override
  public void close() throws IOException {
    @Nullable IOException failure = null;
    for (Path temp : temps) {
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
    temps.clear();
    if (failure != null) {
      throw failure;
    }
  }

  private static Path newTemp(Path target) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return AtomicFileWriter.newTemp(target);
      } catch (NoSuchFileException e) {
        // a delete pruned the directory between its creation and the temp file's; make it again
        if (attempt == TEMP_ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
