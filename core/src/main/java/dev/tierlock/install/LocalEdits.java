package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.internal.AtomicFileWriter;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * What convergence knows of the files a restore replaces beyond those the {@link FilesDigest}
 * counts, and where it keeps local edits before a restore replaces them.
 *
 * <p>A restore swaps out the whole extension root (skills and {@code ._*} files included; the roots
 * of nested extensions are copied into the new root as they are) and every bundle root. The files
 * digest leaves skills, {@code ._*} files and bundles out, so that checkouts whose tools lay skills
 * out differently agree on it; an edit made only there is seen by the {@linkplain #skippedDigest
 * skipped-files digest}, recorded beside it when an extension is verified or restored.
 *
 * <p>Edits are kept as a copy under {@code <state>/kept-edits/<@scope>/<name>/<version>-<digest>/}:
 * {@code root/} holds the extension root without its nested roots, {@code bundles/<archive
 * prefix>/} each bundle root. The copy is written under a temporary name and renamed into place, so
 * a directory of that name is whole; the same edits are kept once. Stateless.
 */
final class LocalEdits {

  /** The directory of the state directory the copies are kept in. */
  static final String DIRECTORY = "kept-edits";

  /** The digest of no file at all: the skipped-files digest of an extension with no skill, {@code ._*} file or bundle. */
  static final String NONE = HexFormat.of().formatHex(newDigest().digest());

  private LocalEdits() {}

  /**
   * Returns the digest of the files a restore of an extension replaces that {@link FilesDigest}
   * leaves out: under {@code root} (nested roots left out), the skills of {@code layout} and the
   * {@code ._*} files and directories; and every regular file of each bundle root. Lines as
   * {@link FilesDigest} writes them, bundle files under {@code bundle/<archive prefix>/}; {@link
   * #NONE} when there is no such file. Links are never followed.
   *
   * @throws IOException if a file cannot be read
   */
  static String skippedDigest(Path root, Collection<String> nested, ExtensionLayout layout,
      List<ExtensionLayout.BundleRoot> bundles) throws IOException {
    TreeMap<String, String> lines = new TreeMap<>();
    if (Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      Set<String> skip = Set.copyOf(nested);
      walk(root, skip, (rel, file) -> {
        if (layout.isSkill(rel) || isResourceFork(rel)) {
          lines.put(rel, FilesDigest.sha256(file));
        }
      });
    }
    for (ExtensionLayout.BundleRoot bundle : bundles) {
      if (Files.isDirectory(bundle.live(), LinkOption.NOFOLLOW_LINKS)) {
        String prefix = "bundle/" + bundle.archivePrefix() + "/";
        walk(bundle.live(), Set.of(), (rel, file) -> lines.put(prefix + rel, FilesDigest.sha256(file)));
      }
    }
    MessageDigest all = newDigest();
    lines.forEach((rel, hex) -> all.update((rel + '\0' + hex + '\n').getBytes(StandardCharsets.UTF_8)));
    return HexFormat.of().formatHex(all.digest());
  }

  /**
   * Copies what a restore of {@code name} would replace into the state directory, once per set of
   * edits, and returns where it is.
   *
   * @param state the checkout's state directory
   * @param version the version on disk, or {@code unversioned}
   * @param digests what identifies these edits (the files and skipped-files digests)
   * @param root the extension root
   * @param nested its nested roots (left out: a restore keeps them in place)
   * @param bundles its bundle roots
   * @throws IOException if the copy cannot be made whole; what was copied is left under a
   *     temporary name
   */
  static Path keep(Path state, ExtensionName name, String version, String digests, Path root,
      Collection<String> nested, List<ExtensionLayout.BundleRoot> bundles) throws IOException {
    Path dir = state.resolve(DIRECTORY);
    for (String part : name.value().split("/")) {
      dir = dir.resolve(part);
    }
    String id = HexFormat.of().formatHex(newDigest().digest(digests.getBytes(StandardCharsets.UTF_8)))
        .substring(0, 12);
    Path target = dir.resolve(version.replaceAll("[^A-Za-z0-9._+-]", "_") + "-" + id);
    if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
      return target;  // these very edits were kept already
    }
    Files.createDirectories(dir);
    Path partial = dir.resolve(".partial-" + UUID.randomUUID());
    Files.createDirectory(partial);
    if (Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      copy(root, partial.resolve("root"), Set.copyOf(nested));
    }
    for (ExtensionLayout.BundleRoot bundle : bundles) {
      if (Files.isDirectory(bundle.live(), LinkOption.NOFOLLOW_LINKS)) {
        Path to = partial.resolve("bundles");
        for (String part : bundle.archivePrefix().split("/")) {
          to = to.resolve(part);
        }
        Files.createDirectories(to.getParent());
        copy(bundle.live(), to, Set.of());
      }
    }
    AtomicFileWriter.forceDirectory(partial);
    Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
    AtomicFileWriter.forceDirectory(dir);
    return target;
  }

  private static boolean isResourceFork(String rel) {
    for (String part : rel.split("/")) {
      if (part.startsWith("._")) {
        return true;
      }
    }
    return false;
  }

  /** What the walk does with each regular file: its relative path and the file. */
  private interface FileAction {
    void accept(String rel, Path file) throws IOException;
  }

  private static void walk(Path root, Set<String> skip, FileAction action) throws IOException {
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        return skip.contains(relative(root, dir)) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        if (attrs.isRegularFile()) {
          action.accept(relative(root, file), file);
        }
        return FileVisitResult.CONTINUE;
      }
    });
  }

  /** Copies the tree at {@code from} to {@code to} (which must not exist), links as links, leaving out {@code skip}. */
  private static void copy(Path from, Path to, Set<String> skip) throws IOException {
    Files.walkFileTree(from, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
        String rel = relative(from, dir);
        if (skip.contains(rel)) {
          return FileVisitResult.SKIP_SUBTREE;
        }
        Files.createDirectories(rel.isEmpty() ? to : to.resolve(rel));
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        if (e != null) {
          throw e;
        }
        String rel = relative(from, dir);
        AtomicFileWriter.forceDirectory(rel.isEmpty() ? to : to.resolve(rel));
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Path target = to.resolve(relative(from, file));
        Files.copy(file, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        if (attrs.isRegularFile()) {
          try (FileChannel channel = FileChannel.open(target, StandardOpenOption.WRITE)) {
            channel.force(true);  // the copy is the only one once the restore commits
          }
        }
        return FileVisitResult.CONTINUE;
      }
    });
  }

  private static String relative(Path root, Path path) {
    return root.relativize(path).toString().replace('\\', '/');
  }

  private static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot digest files: this JVM has no SHA-256", e);
    }
  }
}
