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

/**
 * The file operations of a swap: a rename that never targets an existing path, a copy of a tree
 * that never follows links, and the clean-up of emptied parents. Every step is forced to disk before
 * it returns, so a boundary after it survives a power cut. Stateless; callers hold the
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
    if (exists(target)) {
      throw new IOException("Cannot move " + source + " to " + target + ": the target exists");
    }
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    AtomicFileWriter.forceDirectory(target.getParent());
    if (!source.getParent().equals(target.getParent())) {
      AtomicFileWriter.forceDirectory(source.getParent());
    }
  }

  /** Creates {@code dir} and its missing parents, forcing the parent of each directory created. */
  static void createDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Path parent = dir.getParent();
    if (parent != null) {
      createDirectories(parent);
    }
    Files.createDirectory(dir);
    if (parent != null) {
      AtomicFileWriter.forceDirectory(parent);
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
