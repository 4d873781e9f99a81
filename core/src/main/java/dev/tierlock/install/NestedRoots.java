package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.io.IOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The roots of other extensions nested in one extension's root ({@code @a/b/c} inside {@code
 * @a/b}): those the lockfile names, and those on disk without an entry (installed with {@link
 * InstallRequest.RecordPolicy#NEVER}) whose manifest names them. Only the outermost of each chain is listed: a
 * root nested in another nested one travels with it.
 */
final class NestedRoots {

  private NestedRoots() {}

  /**
   * Returns the relative directories ({@code /}-separated, sorted) inside the extension root of
   * {@code name} that hold another extension's root.
   *
   * @param known the names the lockfile has
   */
  static List<String> of(ExtensionLayout layout, ExtensionName name, Collection<ExtensionName> known) {
    String prefix = name.value() + "/";
    TreeSet<String> found = new TreeSet<>();
    for (ExtensionName other : known) {
      if (other.value().startsWith(prefix)) {
        found.add(other.value().substring(prefix.length()));
      }
    }
    return outermost(layout, name, found);
  }

  /**
   * Returns what {@link #of(ExtensionLayout, ExtensionName, Collection)} returns, the names the
   * lockfile has given as their {@link #index}: a lookup, not a scan of every name, for a pass that
   * looks at each entry of a large lockfile.
   */
  static List<String> of(ExtensionLayout layout, ExtensionName name, NavigableSet<String> index) {
    String prefix = name.value() + "/";
    TreeSet<String> found = new TreeSet<>();
    // every value that starts with "name/" sorts from "name/" up to, not including, "name0" ('0' follows '/')
    for (String other : index.subSet(prefix, true, name.value() + "0", false)) {
      found.add(other.substring(prefix.length()));
    }
    return outermost(layout, name, found);
  }

  /** {@return the values of {@code known}, sorted: what {@link #of(ExtensionLayout, ExtensionName, NavigableSet)} looks in} */
  static NavigableSet<String> index(Collection<ExtensionName> known) {
    TreeSet<String> index = new TreeSet<>();
    known.forEach(n -> index.add(n.value()));
    return index;
  }

  private static List<String> outermost(ExtensionLayout layout, ExtensionName name, TreeSet<String> found) {
    found.addAll(onDisk(layout, name));
    List<String> outermost = new ArrayList<>();
    for (String rel : found) {
      if (outermost.stream().noneMatch(kept -> rel.startsWith(kept + "/"))) {
        outermost.add(rel);
      }
    }
    return outermost;
  }

  /** Returns the directories under the root whose manifest reads as the extension their place names. */
  private static Set<String> onDisk(ExtensionLayout layout, ExtensionName name) {
    Path root = Roots.extensionRoot(layout, name);
    Set<String> found = new TreeSet<>();
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      return found;
    }
    String manifest = layout.manifestPath();
    try {
      Files.walkFileTree(root, Set.<FileVisitOption>of(), 16, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
          if (dir.equals(root)) {
            return FileVisitResult.CONTINUE;
          }
          String rel = root.relativize(dir).toString().replace('\\', '/');
          String candidate = name.value() + "/" + rel;
          Path file = dir.resolve(manifest);
          if (ExtensionName.isValid(candidate) && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            try {
              if (layout.readManifest(file).name().value().equals(candidate)) {
                found.add(rel);
                return FileVisitResult.SKIP_SUBTREE;
              }
            } catch (RuntimeException e) {
              // not a manifest of that extension: the directory is this extension's own content
            }
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw InstallException.failed(name.value(), "cannot look for nested extensions under " + root + " ("
          + e.getMessage() + ")", e);
    }
    return found;
  }
}
