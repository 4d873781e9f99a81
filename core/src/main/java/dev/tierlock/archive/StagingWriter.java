package dev.tierlock.archive;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Writes accepted entries into a staging directory it created (or found empty). It never follows a
 * link: files are created new with {@link LinkOption#NOFOLLOW_LINKS}, every parent is checked to be
 * a real directory before use, symbolic links are created last (after every check of the archive
 * passed), and permissions are set without following links. {@link #discard(Throwable)} removes everything
 * it wrote, without following links. Permission bits are kept where the filesystem supports POSIX
 * permissions; the owner always keeps read access to files and full access to directories, so
 * that the tree can be moved and removed later. Not thread-safe.
 */
final class StagingWriter implements EntrySink {

  private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

  private final String source;
  private final Path root;
  private final boolean created;
  private final List<DirectoryMode> directoryModes = new ArrayList<>();

  private record DirectoryMode(Path directory, int mode) {}

  private StagingWriter(String source, Path root, boolean created) {
    this.source = source;
    this.root = root;
    this.created = created;
  }

  /**
   * Creates {@code staging} (its parent must exist), or takes it when it is an empty directory.
   *
   * @throws ArchiveIoException if it is a link, a file, a non-empty directory, or cannot be created
   */
  static StagingWriter open(Path staging, String source) {
    Path absolute = staging.toAbsolutePath().normalize();
    try {
      if (Files.exists(absolute, NOFOLLOW)) {
        if (!Files.isDirectory(absolute, NOFOLLOW)) {
          throw new ArchiveIoException(source, "Cannot extract archive " + source + " into " + absolute
              + ": it exists and is not a directory", new FileAlreadyExistsException(absolute.toString()));
        }
        try (DirectoryStream<Path> children = Files.newDirectoryStream(absolute)) {
          if (children.iterator().hasNext()) {
            throw new ArchiveIoException(source, "Cannot extract archive " + source + " into " + absolute
                + ": the staging directory is not empty", new FileAlreadyExistsException(absolute.toString()));
          }
        }
        return new StagingWriter(source, absolute.toRealPath(), false);
      }
      Files.createDirectory(absolute);
      return new StagingWriter(source, absolute.toRealPath(), true);
    } catch (IOException e) {
      throw new ArchiveIoException(source, "Cannot extract archive " + source + " into " + absolute + ": "
          + e.getMessage(), e);
    }
  }

  @Override
  public void directory(String path, int mode) {
    Path directory = resolve(path);
    try {
      ensureDirectory(directory);
      directoryModes.add(new DirectoryMode(directory, mode));
    } catch (IOException e) {
      throw failure(path, e);
    }
  }

  @Override
  public FileOutput file(String path, int mode) {
    Path file = resolve(path);
    FileChannel channel;
    try {
      ensureDirectory(file.getParent());
      channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS);
    } catch (FileAlreadyExistsException e) {
      throw new ArchiveRejectedException(source, path, ArchiveRule.DUPLICATE, "the filesystem already holds \""
          + Printable.of(path) + "\" (a case-insensitive or normalising filesystem)");
    } catch (IOException e) {
      throw failure(path, e);
    }
    return new FileOutput() {
      @Override
      public void write(byte[] buffer, int offset, int length) {
        ByteBuffer bytes = ByteBuffer.wrap(buffer, offset, length);
        try {
          while (bytes.hasRemaining()) {
            channel.write(bytes);
          }
        } catch (IOException e) {
          throw failure(path, e);
        }
      }

      @Override
      public void close() {
        try {
          channel.close();
          setMode(file, mode | 0400);
        } catch (IOException e) {
          throw failure(path, e);
        }
      }
    };
  }

  @Override
  public void hardLink(String path, String target) {
    Path link = resolve(path);
    Path existing = resolve(target);
    try {
      ensureDirectory(link.getParent());
      if (!Files.isRegularFile(existing, NOFOLLOW)) {
        throw new ArchiveRejectedException(source, path, ArchiveRule.HARD_LINK_TARGET,
            "\"" + Printable.of(target) + "\" is not a regular file in the staging directory");
      }
      Files.createLink(link, existing);
    } catch (FileAlreadyExistsException e) {
      throw new ArchiveRejectedException(source, path, ArchiveRule.DUPLICATE, "the filesystem already holds it");
    } catch (IOException e) {
      throw failure(path, e);
    }
  }

  @Override
  public void symbolicLink(String path, String target) {
    Path link = resolve(path);
    try {
      ensureDirectory(link.getParent());
      Files.createSymbolicLink(link, link.getFileSystem().getPath(target));
    } catch (FileAlreadyExistsException e) {
      throw new ArchiveRejectedException(source, path, ArchiveRule.DUPLICATE, "the filesystem already holds it");
    } catch (IOException | UnsupportedOperationException e) {
      throw failure(path, e);
    }
  }

  @Override
  public void finish() {
    directoryModes.sort(Comparator.comparingInt((DirectoryMode d) -> d.directory().getNameCount()).reversed());
    for (DirectoryMode d : directoryModes) {
      try {
        setMode(d.directory(), d.mode() | 0700);
      } catch (IOException e) {
        throw failure(root.relativize(d.directory()).toString(), e);
      }
    }
  }

  /**
   * Removes everything written, without following links; removes the staging directory itself when
   * this writer created it. Failures are added to {@code failure} as suppressed exceptions.
   */
  void discard(Throwable failure) {
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
          Files.delete(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
          if (e != null) {
            throw e;
          }
          if (created || !directory.equals(root)) {
            Files.delete(directory);
          }
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  /** Returns the staging directory's real path. */
  Path root() {
    return root;
  }

  private Path resolve(String path) {
    Path resolved = root.resolve(path).normalize();
    if (!resolved.startsWith(root) || resolved.equals(root)) {
      // unreachable for names that passed EntryNames; kept as the last line of defence
      throw new ArchiveRejectedException(source, path, ArchiveRule.PARENT_REFERENCE, "it resolves outside staging");
    }
    return resolved;
  }

  /** Creates {@code directory} and its missing parents under the root, refusing any link on the way. */
  private void ensureDirectory(Path directory) throws IOException {
    Path current = root;
    for (Path segment : root.relativize(directory)) {
      current = current.resolve(segment);
      if (Files.isSymbolicLink(current)) {
        throw new ArchiveRejectedException(source, root.relativize(directory).toString(), ArchiveRule.THROUGH_SYMLINK,
            "\"" + root.relativize(current) + "\" is a symbolic link in the staging directory");
      }
      if (Files.isDirectory(current, NOFOLLOW)) {
        continue;
      }
      try {
        Files.createDirectory(current);
      } catch (FileAlreadyExistsException e) {
        throw new ArchiveRejectedException(source, root.relativize(directory).toString(),
            ArchiveRule.PARENT_NOT_DIRECTORY, "\"" + root.relativize(current) + "\" is not a directory");
      }
    }
  }

  private static void setMode(Path path, int mode) throws IOException {
    PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class, NOFOLLOW);
    if (view != null) {
      view.setPermissions(permissions(mode));
    }
  }

  private static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] order = {
      PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
      PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ,
    };
    for (int bit = 0; bit < order.length; bit++) {
      if ((mode & (1 << bit)) != 0) {
        set.add(order[bit]);
      }
    }
    return set;
  }

  private ArchiveIoException failure(String path, Exception e) {
    return new ArchiveIoException(source, "Cannot extract archive " + source + " entry \"" + Printable.of(path)
        + "\" into " + root + ": " + e.getMessage(), e);
  }
}
