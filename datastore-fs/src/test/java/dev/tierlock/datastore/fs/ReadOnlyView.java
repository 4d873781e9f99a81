package dev.tierlock.datastore.fs;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardOpenOption;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.spi.FileSystemProvider;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A read-only view of files of the default file system: its paths report that they cannot be
 * written and open only for reading, and every write is refused with {@link
 * AccessDeniedException}. It exists to open the JDK's zip file system read-only: that provider
 * makes a zip file system read-only exactly when its zip file is not writable, and then refuses
 * every change with {@link java.nio.file.ReadOnlyFileSystemException}, whoever runs the test (the
 * tests may run as root, which ignores permission bits, and the zip provider of JDK 17 has no
 * read-only option). Only what the zip provider calls on its zip file is supported.
 */
final class ReadOnlyView extends FileSystemProvider {

  private final ViewFileSystem fileSystem = new ViewFileSystem();

  private ReadOnlyView() {}

  /**
   * Opens the zip file {@code zip} (on the default file system) as a read-only zip file system.
   *
   * @throws IOException if it cannot be opened
   */
  static FileSystem openZip(Path zip) throws IOException {
    ReadOnlyView view = new ReadOnlyView();
    return FileSystems.newFileSystem(view.new ViewPath(zip.toAbsolutePath()), Map.of());
  }

  @Override
  public String getScheme() {
    return "tierlock-read-only";
  }

  @Override
  public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
    throw new UnsupportedOperationException("a read-only view is made by ReadOnlyView.openZip");
  }

  @Override
  public FileSystem getFileSystem(URI uri) {
    throw new UnsupportedOperationException("a read-only view is made by ReadOnlyView.openZip");
  }

  @Override
  public Path getPath(URI uri) {
    throw new UnsupportedOperationException("a read-only view is made by ReadOnlyView.openZip");
  }

  @Override
  public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
      throws IOException {
    for (OpenOption option : options) {
      if (option != StandardOpenOption.READ && option != LinkOption.NOFOLLOW_LINKS) {
        throw refused(path, "open with " + option);
      }
    }
    return real(path).getFileSystem().provider().newByteChannel(real(path), options, attrs);
  }

  @Override
  public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter) {
    throw new UnsupportedOperationException("a read-only view lists no directories");
  }

  @Override
  public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
    throw refused(dir, "create a directory");
  }

  @Override
  public void delete(Path path) throws IOException {
    throw refused(path, "delete");
  }

  @Override
  public void copy(Path source, Path target, CopyOption... options) throws IOException {
    throw refused(target, "copy");
  }

  @Override
  public void move(Path source, Path target, CopyOption... options) throws IOException {
    throw refused(target, "move");
  }

  @Override
  public boolean isSameFile(Path path, Path path2) throws IOException {
    return path.equals(path2);
  }

  @Override
  public boolean isHidden(Path path) {
    return false;
  }

  @Override
  public FileStore getFileStore(Path path) {
    throw new UnsupportedOperationException("a read-only view has no file store");
  }

  @Override
  public void checkAccess(Path path, AccessMode... modes) throws IOException {
    if (Arrays.asList(modes).contains(AccessMode.WRITE)) {
      throw refused(path, "write");
    }
    real(path).getFileSystem().provider().checkAccess(real(path), modes);
  }

  @Override
  public <V extends FileAttributeView> @Nullable V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
    return null; // no owner or permission views: the zip provider then uses its defaults
  }

  @Override
  public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
      throws IOException {
    return real(path).getFileSystem().provider().readAttributes(real(path), type, options);
  }

  @Override
  public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
    return real(path).getFileSystem().provider().readAttributes(real(path), attributes, options);
  }

  @Override
  public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
    throw refused(path, "set attribute " + attribute);
  }

  private static Path real(Path path) {
    return ((ViewPath) path).real;
  }

  private static AccessDeniedException refused(Path path, String what) {
    return new AccessDeniedException(path.toString(), null, "the read-only view refuses to " + what);
  }

  /** The one file system of a view: read-only, with no roots, stores or services of its own. */
  private final class ViewFileSystem extends FileSystem {

    @Override
    public FileSystemProvider provider() {
      return ReadOnlyView.this;
    }

    @Override
    public void close() {
      // holds nothing
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public boolean isReadOnly() {
      return true;
    }

    @Override
    public String getSeparator() {
      return FileSystems.getDefault().getSeparator();
    }

    @Override
    public Iterable<Path> getRootDirectories() {
      throw new UnsupportedOperationException("a read-only view has no roots");
    }

    @Override
    public Iterable<FileStore> getFileStores() {
      throw new UnsupportedOperationException("a read-only view has no file stores");
    }

    @Override
    public Set<String> supportedFileAttributeViews() {
      return Set.of("basic");
    }

    @Override
    public Path getPath(String first, String... more) {
      return new ViewPath(FileSystems.getDefault().getPath(first, more));
    }

    @Override
    public PathMatcher getPathMatcher(String syntaxAndPattern) {
      throw new UnsupportedOperationException("a read-only view matches no paths");
    }

    @Override
    public UserPrincipalLookupService getUserPrincipalLookupService() {
      throw new UnsupportedOperationException("a read-only view has no users");
    }

    @Override
    public WatchService newWatchService() {
      throw new UnsupportedOperationException("a read-only view watches nothing");
    }
  }

  /** A path of the view: a path of the default file system, seen through the view. */
  private final class ViewPath implements Path {

    final Path real;

    ViewPath(Path real) {
      this.real = real;
    }

    private Path wrap(Path path) {
      return new ViewPath(path);
    }

    private Path unwrap(Path other) {
      return other instanceof ViewPath view ? view.real : other;
    }

    @Override
    public FileSystem getFileSystem() {
      return fileSystem;
    }

    @Override
    public boolean isAbsolute() {
      return real.isAbsolute();
    }

    @Override
    public @Nullable Path getRoot() {
      Path root = real.getRoot();
      return root == null ? null : wrap(root);
    }

    @Override
    public @Nullable Path getFileName() {
      Path name = real.getFileName();
      return name == null ? null : wrap(name);
    }

    @Override
    public @Nullable Path getParent() {
      Path parent = real.getParent();
      return parent == null ? null : wrap(parent);
    }

    @Override
    public int getNameCount() {
      return real.getNameCount();
    }

    @Override
    public Path getName(int index) {
      return wrap(real.getName(index));
    }

    @Override
    public Path subpath(int beginIndex, int endIndex) {
      return wrap(real.subpath(beginIndex, endIndex));
    }

    @Override
    public boolean startsWith(Path other) {
      return real.startsWith(unwrap(other));
    }

    @Override
    public boolean endsWith(Path other) {
      return real.endsWith(unwrap(other));
    }

    @Override
    public Path normalize() {
      return wrap(real.normalize());
    }

    @Override
    public Path resolve(Path other) {
      return wrap(real.resolve(unwrap(other)));
    }

    @Override
    public Path relativize(Path other) {
      return wrap(real.relativize(unwrap(other)));
    }

    @Override
    public URI toUri() {
      return real.toUri();
    }

    @Override
    public Path toAbsolutePath() {
      return wrap(real.toAbsolutePath());
    }

    @Override
    public Path toRealPath(LinkOption... options) throws IOException {
      return wrap(real.toRealPath(options));
    }

    @Override
    public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) {
      throw new UnsupportedOperationException("a read-only view watches nothing");
    }

    @Override
    public int compareTo(Path other) {
      return real.compareTo(unwrap(other));
    }

    @Override
    public boolean equals(@Nullable Object other) {
      return other instanceof ViewPath view && view.real.equals(real);
    }

    @Override
    public int hashCode() {
      return real.hashCode();
    }

    @Override
    public String toString() {
      return real.toString();
    }
  }
}
