package dev.tierlock.archive;

import dev.tierlock.internal.AtomicFileWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Writes accepted entries into a staging directory it created (or found empty), and never follows
 * a link, even one another process puts in place of a staging directory while the extraction runs.
 * Every operation walks down from a handle on the staging root with {@link SecureDirectoryStream}
 * (each directory opened relative to its verified parent, without following links); files are
 * created new relative to their verified parent, permissions are changed relative to it, and
 * {@link #discard(Throwable)} deletes relative to it. The operations the JDK offers only by path
 * (creating a directory, a hard link or a symbolic link) are checked afterwards through the
 * verified parent, and undone or refused when they did not land there. Symbolic links are created
 * last, after every check of the archive passed. Permission bits are kept where the filesystem
 * supports POSIX permissions; the owner always keeps read access to files and full access to
 * directories, so that the tree can be moved and removed later. Needs a filesystem that offers
 * {@link SecureDirectoryStream} (Linux, macOS); elsewhere extraction is refused. What {@link
 * #finish} returns on is on disk: every file is forced as it closes, every directory whose entries
 * changed once at the end (the tree becomes an installed extension by renames, which force only
 * the directories they change). Not thread-safe.
 */
final class StagingWriter implements EntrySink {

  private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;
  private static final Set<OpenOption> CREATE_FILE =
      Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);

  private enum Missing { CREATE, REFUSE }

  private final String source;
  private final Path root;
  private final boolean created;
  private final SecureDirectoryStream<Path> rootDirectory;
  private final List<DirectoryMode> directoryModes = new ArrayList<>();
  /** The directories whose entries changed, relative to the root ("" is the root): forced by {@link #finish}. */
  private final Set<String> changedDirectories = new LinkedHashSet<>();
  private boolean closed;

  private record DirectoryMode(String path, int mode) {}

  private StagingWriter(String source, Path root, boolean created, SecureDirectoryStream<Path> rootDirectory) {
    this.source = source;
    this.root = root;
    this.created = created;
    this.rootDirectory = rootDirectory;
  }

  /**
   * Creates {@code staging} (its parent must exist), or takes it when it is an empty directory.
   *
   * @throws ArchiveException ({@code archive_io}) if it is a link, a file, a non-empty directory, cannot be created,
   *     or its filesystem cannot open directories without following links
   */
  static StagingWriter open(Path staging, String source) {
    Path absolute = staging.toAbsolutePath().normalize();
    boolean created = false;
    try {
      if (Files.exists(absolute, NOFOLLOW)) {
        if (!Files.isDirectory(absolute, NOFOLLOW)) {
          throw ArchiveException.io(source, "Cannot extract archive " + source + " into " + absolute
              + ": it exists and is not a directory", new FileAlreadyExistsException(absolute.toString()));
        }
        try (DirectoryStream<Path> children = Files.newDirectoryStream(absolute)) {
          if (children.iterator().hasNext()) {
            throw ArchiveException.io(source, "Cannot extract archive " + source + " into " + absolute
                + ": the staging directory is not empty", new FileAlreadyExistsException(absolute.toString()));
          }
        }
      } else {
        Files.createDirectory(absolute);
        created = true;
      }
      Path real = absolute.toRealPath();
      DirectoryStream<Path> stream = Files.newDirectoryStream(real);
      if (stream instanceof SecureDirectoryStream<Path> secure) {
        return new StagingWriter(source, real, created, secure);
      }
      stream.close();
      throw new IOException("the filesystem cannot open directories without following links");
    } catch (IOException e) {
      ArchiveException failure = ArchiveException.io(source, "Cannot extract archive " + source + " into "
          + absolute + ": " + e.getMessage(), e);
      if (created) {
        try {
          Files.deleteIfExists(absolute);
        } catch (IOException suppressed) {
          failure.addSuppressed(suppressed);
        }
      }
      throw failure;
    }
  }

  @Override
  public void directory(String path, int mode) {
    try {
      openDirectory(path, segments(path), Missing.CREATE).close();
      directoryModes.add(new DirectoryMode(path, mode));
    } catch (IOException e) {
      throw failure(path, e);
    }
  }

  @Override
  public FileOutput file(String path, int mode) {
    String[] segments = segments(path);
    Path name = name(segments);
    SecureDirectoryStream<Path> parent;
    SeekableByteChannel channel;
    try {
      parent = openDirectory(path, parentOf(segments), Missing.CREATE);
    } catch (IOException e) {
      throw failure(path, e);
    }
    try {
      channel = parent.newByteChannel(name, CREATE_FILE);
      changedDirectories.add(parentPath(segments));
    } catch (FileAlreadyExistsException e) {
      SecureDirectories.closeQuietly(parent, e);
      throw ArchiveException.rejected(source, path, ArchiveException.Rule.DUPLICATE, "the filesystem already holds \""
          + Printable.of(path) + "\" (a case-insensitive or normalising filesystem)");
    } catch (IOException | RuntimeException e) {
      SecureDirectories.closeQuietly(parent, e);
      throw e instanceof IOException io ? failure(path, io) : (RuntimeException) e;
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
        try (parent) {
          // the extracted bytes are the installed extension's once the swap commits: durable before it
          if (channel instanceof FileChannel file) {
            file.force(false);
          }
          channel.close();
          setMode(parent, name, path, mode | 0400);
        } catch (IOException e) {
          throw failure(path, e);
        }
      }
    };
  }

  @Override
  public void hardLink(String path, String target) {
    String[] linkSegments = segments(path);
    String[] targetSegments = segments(target);
    try (SecureDirectoryStream<Path> linkParent = openDirectory(path, parentOf(linkSegments), Missing.CREATE);
        SecureDirectoryStream<Path> targetParent = openDirectory(path, parentOf(targetSegments), Missing.REFUSE)) {
      BasicFileAttributes existing = SecureDirectories.attributes(targetParent, name(targetSegments));
      if (existing == null || !existing.isRegularFile()) {
        throw ArchiveException.rejected(source, path, ArchiveException.Rule.HARD_LINK_TARGET,
            "\"" + Printable.of(target) + "\" is not a regular file in the staging directory");
      }
      Files.createLink(root.resolve(path), root.resolve(target));
      changedDirectories.add(parentPath(linkSegments));
      BasicFileAttributes made = SecureDirectories.attributes(linkParent, name(linkSegments));
      if (made == null || !made.isRegularFile() || !Objects.equals(made.fileKey(), existing.fileKey())) {
        if (made != null) {
          linkParent.deleteFile(name(linkSegments));
        }
        throw changed(path);
      }
    } catch (FileAlreadyExistsException e) {
      throw ArchiveException.rejected(source, path, ArchiveException.Rule.DUPLICATE, "the filesystem already holds it");
    } catch (IOException e) {
      throw failure(path, e);
    }
  }

  @Override
  public void symbolicLink(String path, String target) {
    String[] segments = segments(path);
    try (SecureDirectoryStream<Path> parent = openDirectory(path, parentOf(segments), Missing.CREATE)) {
      Files.createSymbolicLink(root.resolve(path), root.getFileSystem().getPath(target));
      changedDirectories.add(parentPath(segments));
      BasicFileAttributes made = SecureDirectories.attributes(parent, name(segments));
      if (made == null || !made.isSymbolicLink()) {
        throw changed(path);
      }
    } catch (FileAlreadyExistsException e) {
      throw ArchiveException.rejected(source, path, ArchiveException.Rule.DUPLICATE, "the filesystem already holds it");
    } catch (IOException | UnsupportedOperationException e) {
      throw failure(path, e);
    }
  }

  @Override
  public void finish() {
    directoryModes.sort(Comparator.comparingInt((DirectoryMode d) -> segments(d.path()).length).reversed());
    for (DirectoryMode d : directoryModes) {
      String[] segments = segments(d.path());
      try (SecureDirectoryStream<Path> parent = openDirectory(d.path(), parentOf(segments), Missing.REFUSE)) {
        BasicFileAttributes attributes = SecureDirectories.attributes(parent, name(segments));
        if (attributes == null || !attributes.isDirectory()) {
          throw changed(d.path());
        }
        setMode(parent, name(segments), d.path(), d.mode() | 0700);
      } catch (IOException e) {
        throw failure(d.path(), e);
      }
    }
    // every file was forced as it closed; the names of the files and directories are forced here
    for (String dir : changedDirectories) {
      try {
        AtomicFileWriter.forceDirectory(root.resolve(dir));
      } catch (IOException e) {
        throw failure(dir, e);
      }
    }
    closeRoot();
  }

  /**
   * Removes everything written, without following links (even ones put in place of a staging
   * directory meanwhile); removes the staging directory itself when this writer created it.
   * Failures are added to {@code failure} as suppressed exceptions.
   */
  void discard(Throwable failure) {
    try {
      if (closed) {
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(root)) {
          if (stream instanceof SecureDirectoryStream<Path> secure) {
            SecureDirectories.deleteContents(secure);
          }
        }
      } else {
        try (SecureDirectoryStream<Path> self = rootDirectory.newDirectoryStream(dot(), NOFOLLOW)) {
          SecureDirectories.deleteContents(self);
        }
      }
      if (created) {
        Files.delete(root);
      }
    } catch (IOException e) {
      failure.addSuppressed(e);
    } finally {
      try {
        closeRoot();
      } catch (ArchiveException e) {
        failure.addSuppressed(e);
      }
    }
  }

  /** Returns the staging directory's real path. */
  Path root() {
    return root;
  }

  /**
   * Opens the directory {@code segments} below the root, creating missing ones, refusing any link
   * or non-directory on the way. The caller closes the returned stream.
   */
  private SecureDirectoryStream<Path> openDirectory(String entry, String[] segments, Missing missing)
      throws IOException {
    SecureDirectoryStream<Path> current = rootDirectory;
    try {
      for (int i = 0; i < segments.length; i++) {
        Path name = root.getFileSystem().getPath(segments[i]);
        String walked = String.join("/", Arrays.copyOf(segments, i + 1));
        BasicFileAttributes attributes = SecureDirectories.attributes(current, name);
        if (attributes == null && missing == Missing.CREATE) {
          try {
            Files.createDirectory(root.resolve(walked));
            changedDirectories.add(String.join("/", Arrays.copyOf(segments, i)));
          } catch (FileAlreadyExistsException e) {
            // created meanwhile: judged below like any other
          }
          attributes = SecureDirectories.attributes(current, name);
          if (attributes == null) {
            throw changed(entry);
          }
        }
        if (attributes == null) {
          throw new NoSuchFileException(root.resolve(walked).toString());
        }
        if (attributes.isSymbolicLink()) {
          throw ArchiveException.rejected(source, entry, ArchiveException.Rule.THROUGH_SYMLINK,
              "\"" + Printable.of(walked) + "\" is a symbolic link in the staging directory");
        }
        if (!attributes.isDirectory()) {
          throw ArchiveException.rejected(source, entry, ArchiveException.Rule.PARENT_NOT_DIRECTORY,
              "\"" + Printable.of(walked) + "\" is not a directory");
        }
        SecureDirectoryStream<Path> next = current.newDirectoryStream(name, NOFOLLOW);
        if (current != rootDirectory) {
          current.close();
        }
        current = next;
      }
      if (current == rootDirectory) {
        // a second handle on the root, so that every caller closes what it gets
        return rootDirectory.newDirectoryStream(dot(), NOFOLLOW);
      }
      return current;
    } catch (IOException | RuntimeException e) {
      if (current != rootDirectory) {
        SecureDirectories.closeQuietly(current, e);
      }
      throw e;
    }
  }

  private void setMode(SecureDirectoryStream<Path> parent, Path name, String path, int mode) throws IOException {
    PosixFileAttributeView view = parent.getFileAttributeView(name, PosixFileAttributeView.class, NOFOLLOW);
    if (view != null) {
      BasicFileAttributes attributes = SecureDirectories.attributes(parent, name);
      if (attributes == null || attributes.isSymbolicLink()) {
        throw changed(path);
      }
      view.setPermissions(SecureDirectories.permissions(mode));
    }
  }

  private static String[] segments(String path) {
    return path.split("/");
  }

  private static String parentPath(String[] segments) {
    return String.join("/", parentOf(segments));
  }

  private static String[] parentOf(String[] segments) {
    return Arrays.copyOf(segments, segments.length - 1);
  }

  private Path dot() {
    return root.getFileSystem().getPath(".");
  }

  private Path name(String[] segments) {
    return root.getFileSystem().getPath(segments[segments.length - 1]);
  }

  private void closeRoot() {
    if (!closed) {
      closed = true;
      try {
        rootDirectory.close();
      } catch (IOException e) {
        throw failure("", e);
      }
    }
  }

  private ArchiveException changed(String path) {
    return ArchiveException.rejected(source, path, ArchiveException.Rule.THROUGH_SYMLINK,
        "the staging directory was changed by someone else while extracting (a symbolic link took a directory's place)");
  }

  private ArchiveException failure(String path, Exception e) {
    return ArchiveException.io(source, "Cannot extract archive " + source + " entry \"" + Printable.of(path)
        + "\" into " + root + ": " + e.getMessage(), e);
  }
}
