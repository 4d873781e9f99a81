package dev.tierlock.datastore.fs;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.StoredObject;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Lists objects by walking the directory tree below the root: regular files (and links to them)
 * whose relative path is a valid key starting with the prefix. The internal directory, temp files
 * and names that are not keys are skipped; directory links are not followed. The walk starts at the
 * deepest directory the prefix names. Files that vanish during the walk are left out. Thread-safe.
 */
final class ObjectLister {

  private final RootLayout layout;
  private final ObjectReader reader;

  ObjectLister(RootLayout layout, ObjectReader reader) {
    this.layout = layout;
    this.reader = reader;
  }

  /** Lists every object whose key starts with {@code prefix} (already validated), sorted by key. */
  List<StoredObject> list(String prefix) throws IOException {
    Optional<Path> start = startOf(prefix);
    if (start.isEmpty() || !Files.isDirectory(start.get())) {
      return List.of();
    }
    TreeMap<String, Path> found = new TreeMap<>();
    Files.walkFileTree(start.get(), EnumSet.noneOf(FileVisitOption.class), Integer.MAX_VALUE,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            return dir.equals(layout.internal()) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            boolean regular = attrs.isRegularFile() || (attrs.isSymbolicLink() && Files.isRegularFile(file));
            if (regular) {
              layout.keyOf(file).filter(key -> key.value().startsWith(prefix))
                  .ifPresent(key -> found.put(key.value(), file));
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE; // deleted while we walked
            }
            throw e;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null && !(e instanceof NoSuchFileException)) {
              throw e;
            }
            return FileVisitResult.CONTINUE;
          }
        });
    List<StoredObject> objects = new ArrayList<>(found.size());
    for (var entry : found.entrySet()) {
      ObjectKey key = ObjectKey.of(entry.getKey());
      reader.state(key, entry.getValue()).ifPresent(state -> objects.add(state.describe(key)));
    }
    return objects;
  }

  private Optional<Path> startOf(String prefix) {
    int slash = prefix.lastIndexOf('/');
    if (slash < 0) {
      return Optional.of(layout.root());
    }
    try {
      return Optional.of(layout.objectPath(ObjectKey.of(prefix.substring(0, slash)), "list"));
    } catch (IllegalArgumentException e) {
      return Optional.empty(); // no object can live below a reserved or impossible directory
    }
  }
}
