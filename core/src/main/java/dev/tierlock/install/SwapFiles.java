package dev.tierlock.install;

import dev.tierlock.internal.AtomicFileWriter;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The file operations of a swap: a rename that never targets an existing path, a copy of a tree
 * that never follows links, and the clean-up of emptied parents. Every step is forced to disk before
 * it returns, so a boundary after it survives a power cut; the variants that take a set of changed
 * directories leave the forcing to the caller's {@link #force} at the end of a series of steps a
 * crash undoes whole. Stateless; callers hold the
 * pulled-extensions lock, so a target checked absent stays absent until the rename.
 */
final class SwapFiles {

  private SwapFiles() {}

  /** Returns whether {@code path} exists, not following a link (a dangling link exists). */
  static boolean exists(Path path) {
    return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * Renames {@code source} to {@code target} atomically, never replacing anything (a POSIX rename
   * would replace a file or an empty directory silently, so the target is checked first), then
   * forces both directories.
   *
   * @throws IOException if {@code target} exists; nothing moved
   * @throws IOException if the rename fails; nothing moved
   */
  static void move(Path source, Path target) throws IOException {
    Set<Path> changed = new LinkedHashSet<>();
    move(source, target, changed);
    force(changed);
  }

  /**
   * Renames as {@link #move(Path, Path)} does, adding the directories whose entries changed to
   * {@code changed} instead of forcing them: for a series of steps that {@link #force} makes
   * durable together at its end, where a crash inside the series is undone as a whole.
   *
   * @throws IOException if {@code target} exists, or the rename fails; nothing moved
   */
  static void move(Path source, Path target, Set<Path> changed) throws IOException {
    if (exists(target)) {
      throw new IOException("Cannot move " + source + " to " + target + ": the target exists");
    }
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    changed.add(target.getParent());
    changed.add(source.getParent());
  }

  /**
   * Renames {@code source} to {@code target} as {@link #move(Path, Path, Set)} does, adding only
   * the target's directory to {@code changed}: for a move whose source side nothing relies on
   * surviving a crash on its own (a source in disposable staging, which recovery deletes whole or
   * the sweep removes, or one in a directory the caller forces later anyway).
   */
  static void moveIn(Path source, Path target, Set<Path> changed) throws IOException {
    move(source, target, new LinkedHashSet<>());
    changed.add(target.getParent());
  }

  /** Creates {@code dir} and its missing parents, forcing the parent of each directory created. */
  static void createDirectories(Path dir) throws IOException {
    Set<Path> changed = new LinkedHashSet<>();
    createDirectories(dir, changed);
    force(changed);
  }

  /**
   * Creates {@code dir} and its missing parents, adding the parent of each directory created to
   * {@code changed} instead of forcing it (see {@link #move(Path, Path, Set)}).
   */
  static void createDirectories(Path dir, Set<Path> changed) throws IOException {
    if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Path parent = dir.getParent();
    if (parent != null) {
      createDirectories(parent, changed);
    }
    Files.createDirectory(dir);
    if (parent != null) {
      changed.add(parent);
    }
  }

  /** Forces each directory of {@code changed} once, in order. */
  static void force(Set<Path> changed) throws IOException {
    for (Path dir : changed) {
      AtomicFileWriter.forceDirectory(dir);
    }
  }

  /**
   * Copies the tree at {@code from} to {@code to} (which must not exist), keeping file bytes, links
   * (as links, never followed) and attributes; every file copied is forced to disk.
   *
   * @throws IOException if anything cannot be copied (what was copied stays, under {@code to})
   */
  static void copyTree(Path from, Path to) throws IOException {
    Files.walkFileTree(from, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
        Files.copy(dir, to.resolve(from.relativize(dir).toString()), StandardCopyOption.COPY_ATTRIBUTES,
            LinkOption.NOFOLLOW_LINKS);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Path target = to.resolve(from.relativize(file).toString());
        Files.copy(file, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        if (attrs.isRegularFile()) {
          try (FileChannel channel = FileChannel.open(target, StandardOpenOption.WRITE)) {
            channel.force(true);
          }
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        if (e != null) {
          throw e;
        }
        AtomicFileWriter.forceDirectory(to.resolve(from.relativize(dir).toString()));
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /**
   * Deletes the empty directories from {@code dir}'s parent up to, not including, {@code top} (the
   * scope directory a removal emptied), stopping at the first that is not empty. Never throws.
   */
  static void deleteEmptyParents(Path dir, Path top) {
    for (Path parent = dir.getParent(); parent != null && !parent.equals(top) && parent.startsWith(top);
        parent = parent.getParent()) {
      try {
        Files.delete(parent);
      } catch (NoSuchFileException e) {
        // already gone: look further up
      } catch (DirectoryNotEmptyException e) {
        return;
      } catch (IOException e) {
        return;
      }
    }
  }
}
