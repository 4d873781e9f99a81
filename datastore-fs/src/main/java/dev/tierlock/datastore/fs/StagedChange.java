package dev.tierlock.datastore.fs;

import dev.tierlock.datastore.fs.FileSystemFailures.Phase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One write or delete in progress on its key's claim ({@link KeyClaims.Claim}): stages bytes in
 * files of the claim's own directory, takes the claim, moves staged files over their targets (or a
 * deleted object into the claim's directory), and records how far it got (the {@link Phase} that
 * decides whether a failure can have changed anything). Every move is a rename whose source or
 * destination lies in the claim's directory, so none of them happens once the claim was taken
 * over: such a step fails with {@link KeyClaims.Lost}, and the change did not happen. The claim's
 * release deletes whatever is still staged. Not thread-safe: one per call.
 */
final class StagedChange {

  private static final int MOVE_ATTEMPTS = 3;

  private final FileIo io;
  private final KeyClaims.Claim claim;
  private int files;
  private Phase phase = Phase.PREPARE;

  StagedChange(FileIo io, KeyClaims.Claim claim) {
    this.io = io;
    this.claim = claim;
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
   * A staged file in the claim's directory.
   *
   * @param name its name there
   * @param size the number of bytes staged
   */
  record Staged(String name, long size) {}

  /** Returns where a staged file is now. */
  Path path(Staged staged) {
    return claim.directory().resolve(staged.name());
  }

  /**
   * Makes the claim the key's (see {@link KeyClaims.Claim#acquire()}).
   *
   * @throws KeyClaims.Busy if another writer kept the key past the lock timeout
   * @throws IOException if the claim cannot be taken
   * @throws InterruptedException if interrupted while waiting
   */
  void claim() throws KeyClaims.Busy, IOException, InterruptedException {
    claim.acquire();
  }

  /**
   * Writes everything {@code in} yields to a new file of the claim's directory, forced to disk; no
   * target is touched.
   *
   * @throws KeyClaims.Lost if the claim was taken over
   * @throws IOException if the file cannot be created or written
   */
  Staged stage(InputStream in) throws IOException {
    return stage(in, true);
  }

  /**
   * Writes everything {@code in} yields to a new file of the claim's directory, not yet forced to
   * disk: {@link #seal} forces it before it is moved anywhere.
   *
   * @throws KeyClaims.Lost if the claim was taken over
   * @throws IOException if the file cannot be created or written
   */
  Staged stageUnforced(InputStream in) throws IOException {
    return stage(in, false);
  }

  private Staged stage(InputStream in, boolean force) throws IOException {
    String name = "staged-" + ++files;
    try (FileChannel channel = FileChannel.open(claim.directory().resolve(name), StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE)) {
      if (force) {
        io.fill(in, channel);
      } else {
        io.copy(in, channel);
      }
      return new Staged(name, channel.size());
    } catch (NoSuchFileException e) {
      throw claim.lostOr(e);
    }
  }

  /**
   * Attaches {@code metadata} (null: none) to a file staged by {@link #stageUnforced} as its
   * extended attribute, then forces the file, bytes and attribute, to disk in one flush.
   *
   * @return false when the file system keeps no extended attributes (or none that large): the file
   *     is forced without it, and the metadata needs the sidecar
   * @throws KeyClaims.Lost if the claim was taken over
   */
  boolean seal(Staged staged, byte @Nullable [] metadata) throws IOException {
    Path file = path(staged);
    try {
      boolean attached = metadata != null && io.attach(file, ExtendedAttributes.METADATA, metadata);
      io.force(file);
      return attached;
    } catch (NoSuchFileException e) {
      throw claim.lostOr(e);
    }
  }

  /** Deletes a staged file that turned out not to be needed. */
  void discard(Staged staged) throws IOException {
    Files.deleteIfExists(path(staged));
  }

  /**
   * Moves a staged file over {@code target} as a step before the change is published (the phase
   * stays as it is), then forces the target's directory.
   */
  void install(Staged staged, Path target) throws IOException {
    moveIn(staged, target, phase);
    io.forceDirectory(target.getParent());
  }

  /**
   * Publishes the change: moves a staged file over {@code target} ({@link Phase#COMMIT}), then
   * forces the target's directory ({@link Phase#DURABLE}).
   */
  void publish(Staged staged, Path target) throws IOException {
    moveIn(staged, target, Phase.COMMIT);
    phase = Phase.DURABLE;
    io.forceDirectory(target.getParent());
  }

  /** Forces a directory's entries to disk (through the change's {@link FileIo}). */
  void forceDirectory(Path dir) throws IOException {
    io.forceDirectory(dir);
  }

  /**
   * Moves {@code target} into the claim's directory, where the claim's release deletes it: a delete
   * that no writer can make once the claim was taken over.
   *
   * @return false when there was no file to move
   * @throws KeyClaims.Lost if the claim was taken over first
   */
  boolean remove(Path target) throws IOException {
    Path removed = claim.directory().resolve("removed-" + ++files);
    try {
      io.moveAway(target, removed);
      return true;
    } catch (NoSuchFileException e) {
      IOException lost = claim.lostOr(e);
      if (lost != e) {
        throw lost;
      }
      // the move found no source: nothing was there, or (a repeated request) it was already moved in
      return Files.exists(removed, LinkOption.NOFOLLOW_LINKS);
    }
  }

  /**
   * Creates the target's directory (nothing has changed yet), then moves the staged file over the
   * target in phase {@code during}. A delete of the last object of that directory may prune it
   * between the two steps; the move then fails with the staged file still in place, which proves
   * it did not happen, so the directory is made again and the move retried. A move that finds its
   * staged file gone happened if the target is now that very file (same file key and modification
   * time: a move repeated after its answer was lost); else it did not happen if the claim was taken
   * over ({@link KeyClaims.Lost}); else its outcome is unknown (the failure is reported in phase
   * {@code during}).
   */
  private void moveIn(Staged staged, Path target, Phase during) throws IOException {
    Path source = path(staged);
    Optional<FileIdentity> identity;
    try {
      identity = FileIdentity.read(source);
    } catch (NoSuchFileException e) {
      throw claim.lostOr(e);
    }
    Path directory = target.getParent();
    Phase before = phase;
    for (int attempt = 1; ; attempt++) {
      phase = before;
      Files.createDirectories(directory);
      phase = during;
      try {
        io.move(source, target);
        return;
      } catch (NoSuchFileException e) {
        if (Files.exists(source, LinkOption.NOFOLLOW_LINKS)) {
          if (attempt == MOVE_ATTEMPTS || Files.isDirectory(directory)) {
            throw e;
          }
          continue;
        }
        if (identity.isEmpty()) {
          throw e; // no file keys: whether it moved cannot be told
        }
        if (identity.equals(identityOf(target))) {
          return;
        }
        IOException failure = claim.lostOr(e);
        if (failure != e) {
          phase = before; // the claim's directory left the slot first: the rename cannot have happened
        }
        throw failure; // else the staged file vanished under a claim still ours: the outcome is not known
      }
    }
  }

  private static Optional<FileIdentity> identityOf(Path file) throws IOException {
    try {
      return FileIdentity.read(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
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
}
