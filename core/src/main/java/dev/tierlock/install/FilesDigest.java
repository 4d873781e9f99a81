package dev.tierlock.install;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The original tool's digest of an extension root (a lockfile entry's {@code filesChecksum}): for
 * every regular file, the line {@code relPath \0 sha256hex \n} ({@code relPath} relative to the root,
 * {@code /}-separated), the lines sorted by path, and the SHA-256 of their concatenation, in hex.
 * Left out: nested extensions' roots, skill paths ({@link ExtensionLayout#isSkill}) and macOS
 * resource forks ({@code ._*}, as the original tool). Links are never followed, so nothing outside
 * the root is read; like the original tool, a link is not a file and adds no line. Stateless.
 */
final class FilesDigest {

  private FilesDigest() {}

  /**
   * Returns the digest of the tree at {@code root}.
   *
   * @param root the extension root
   * @param nestedRelDirs directories relative to the root ({@code /}-separated) holding other extensions' roots
   * @param layout the layout, which says what a skill is
   * @return the digest, or empty when {@code root} is not a directory (not installed)
   * @throws IOException if a file cannot be read
   */
  static Optional<String> of(Path root, Collection<String> nestedRelDirs, ExtensionLayout layout) throws IOException {
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    Set<String> nested = Set.copyOf(nestedRelDirs);
    TreeMap<String, String> lines = new TreeMap<>();
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        String rel = relative(root, dir);
        if (!rel.isEmpty() && (nested.contains(rel) || dir.getFileName().toString().startsWith("._"))) {
          return FileVisitResult.SKIP_SUBTREE;
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        String rel = relative(root, file);
        if (attrs.isRegularFile() && !file.getFileName().toString().startsWith("._") && !layout.isSkill(rel)) {
          lines.put(rel, sha256(file));
        }
        return FileVisitResult.CONTINUE;
      }
    });
    MessageDigest all = newDigest();
    lines.forEach((rel, hex) -> all.update((rel + '\0' + hex + '\n').getBytes(StandardCharsets.UTF_8)));
    return Optional.of(HexFormat.of().formatHex(all.digest()));
  }

  /**
   * Returns the SHA-256 of a file's bytes, in lowercase hex, never following a link.
   *
   * @throws IOException if it cannot be read (a link cannot)
   */
  static String sha256(Path file) throws IOException {
    MessageDigest digest = newDigest();
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        digest.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  private static String relative(Path root, Path path) {
    StringBuilder rel = new StringBuilder();
    for (Path part : root.relativize(path)) {
      if (rel.length() > 0) {
        rel.append('/');
      }
      rel.append(part);
    }
    return rel.toString();
  }

  private static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot digest files: this JVM has no SHA-256", e);
    }
  }
}
