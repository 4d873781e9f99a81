package dev.tierlock.install;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/** The {@code files} of a lockfile entry: every file an install put live, checkout-relative. */
final class InstalledFiles {

  private InstalledFiles() {}

  /**
   * Lists every regular file and link under the live roots (not following links), as paths relative
   * to {@code checkout} with {@code /} separators (absolute when a root lies outside it), sorted;
   * the nested roots of other extensions inside the extension root are left out.
   */
  static List<String> list(Path checkout, List<SwapRoot> roots, List<String> nested) {
    Path base = checkout.toAbsolutePath().normalize();
    List<String> files = new ArrayList<>();
    for (int i = 0; i < roots.size(); i++) {
      Path root = roots.get(i).live();
      List<Path> skip = i == 0 ? nested.stream().map(root::resolve).toList() : List.of();
      if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      try {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            return skip.contains(dir) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            Path absolute = file.toAbsolutePath().normalize();
            files.add(absolute.startsWith(base) ? base.relativize(absolute).toString().replace('\\', '/')
                : absolute.toString());
            return FileVisitResult.CONTINUE;
          }
        });
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot list the files of " + root, e);
      }
    }
    files.sort(null);
    return files;
  }
}
