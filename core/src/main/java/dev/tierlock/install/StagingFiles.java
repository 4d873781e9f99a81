package dev.tierlock.install;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** File helpers of the install engine's staging. */
final class StagingFiles {

  private static final Logger LOG = LoggerFactory.getLogger(StagingFiles.class);

  private StagingFiles() {}

  /**
   * Deletes {@code root} and everything under it, never following a link (a link is deleted, not
   * its target).
   *
   * @throws IOException if something cannot be deleted (what could be is gone)
   */
  static void delete(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      Files.deleteIfExists(root);
      return;
    }
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        if (e != null && !(e instanceof NoSuchFileException)) {
          throw e;
        }
        Files.deleteIfExists(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /** Deletes {@code root} as {@link #delete} does, logging instead of throwing. */
  static void deleteQuietly(Path root) {
    try {
      delete(root);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot delete staging {}; it is swept later", root, e);
    }
  }
}
