package dev.tierlock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The benchmark's scratch directories: checkouts and filesystem stores, deleted when done. */
final class WorkDirectory {

  private WorkDirectory() {}

  /** Creates a fresh temp directory. */
  static Path create(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create a temp directory", e);
    }
  }

  /** Deletes {@code root} and everything under it, if it exists. */
  static void delete(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + root, e);
    }
  }

  /** Returns the bytes of every regular file under {@code root}. */
  static long size(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      return paths.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot walk " + root, e);
    }
  }
}
