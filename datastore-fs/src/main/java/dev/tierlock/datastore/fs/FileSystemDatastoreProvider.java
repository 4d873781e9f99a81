package dev.tierlock.datastore.fs;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreMissingException;
import dev.tierlock.spi.DatastoreProvider;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Opens {@link FileSystemDatastore}s for {@code file:} URIs ({@code file:///srv/tier}) on the
 * default file system, with the default options. Registered for {@link java.util.ServiceLoader} in
 * {@code META-INF/services/dev.tierlock.spi.DatastoreProvider}. Stateless and thread-safe.
 */
public final class FileSystemDatastoreProvider implements DatastoreProvider {

  /** The URI scheme this provider opens. */
  public static final String SCHEME = "file";

  /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
  public FileSystemDatastoreProvider() {}

  /** Returns {@code file}. */
  @Override
  public String scheme() {
    return SCHEME;
  }

  /**
   * Opens the datastore rooted at the URI's path, which must exist: a missing directory is refused,
   * never created (a mistyped path would otherwise become a new, empty datastore).
   *
   * @param uri a hierarchical {@code file:} URI with an absolute path and no host (or {@code
   *     localhost}), query or fragment
   * @throws IllegalArgumentException if the URI is not such a URI, or names something that is not
   *     a directory; the message says which
   * @throws DatastoreMissingException ({@code datastore_missing}) if nothing is at the path; nothing
   *     was created
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if the root cannot be read
   * @throws dev.tierlock.spi.DatastoreUnavailableException if it cannot be resolved otherwise
   */
  @Override
  public Datastore open(URI uri) {
    Path root = rootOf(uri);
    if (Files.notExists(root)) {
      throw new DatastoreMissingException("Cannot open filesystem datastore " + root.toUri() + ": no such directory;"
          + " check the path, or create a datastore there on purpose (Tierlock.Builder.createDatastore(), tierlock"
          + " init)", null);
    }
    return FileSystemDatastore.open(root);
  }

  /**
   * Creates the datastore's directory (and its parents) when it is missing, then opens it.
   *
   * @param uri a URI as {@link #open} takes
   * @throws IllegalArgumentException if the URI is not such a URI, or names something that is not
   *     a directory
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if the directory cannot be created for
   *     want of permission
   * @throws dev.tierlock.spi.DatastoreUnavailableException if it cannot be created otherwise
   */
  @Override
  public Datastore create(URI uri) {
    return FileSystemDatastore.open(rootOf(uri));
  }

  /**
   * Returns the root directory a {@code file:} URI names.
   *
   * @throws IllegalArgumentException if the URI is not a {@code file:} URI with an absolute path
   *     and nothing else
   */
  static Path rootOf(URI uri) {
    String problem = problemWith(uri);
    if (problem != null) {
      throw new IllegalArgumentException("Cannot open filesystem datastore " + uri + ": " + problem);
    }
    try {
      return Path.of(URI.create(SCHEME + "://" + uri.getRawPath()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot open filesystem datastore " + uri + ": " + e.getMessage(), e);
    }
  }

  private static @Nullable String problemWith(URI uri) {
    if (uri.getScheme() == null || !uri.getScheme().toLowerCase(Locale.ROOT).equals(SCHEME)) {
      return "the scheme must be " + SCHEME + ":";
    }
    if (uri.isOpaque() || uri.getRawPath() == null || !uri.getRawPath().startsWith("/")) {
      return "the path must be absolute, as in file:///srv/tier";
    }
    if (uri.getRawAuthority() != null && !uri.getRawAuthority().equalsIgnoreCase("localhost")) {
      return "a host (" + uri.getRawAuthority() + ") is not supported; mount the share and use file:///<mount path>";
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      return "a query or fragment is not supported";
    }
    if (uri.getRawPath().equals("/")) {
      return "the root of the file system cannot be a datastore";
    }
    return null;
  }
}
