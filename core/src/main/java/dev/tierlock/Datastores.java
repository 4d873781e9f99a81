package dev.tierlock;

import dev.tierlock.spi.DatastoreUnsafeException;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreProvider;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Finds datastores by URI: {@link #open(URI)} looks a URI's scheme up among the {@link
 * DatastoreProvider}s registered with {@link ServiceLoader}. Stateless and thread-safe.
 */
final class Datastores {

  private Datastores() {}

  /**
   * Opens the datastore a URI names ({@code s3://bucket/prefix}, {@code gs://bucket/prefix}, {@code
   * file:///path}), through the provider of its scheme found on the thread's context class loader.
   * The caller closes it.
   *
   * @param uri the datastore's URI
   * @return the datastore, open
   * @throws InvalidInputException ({@code unknown_scheme}) if no provider handles the scheme; the message lists those found
   * @throws IllegalArgumentException if the provider refuses the URI; the message says why
   * @throws dev.tierlock.spi.DatastoreMissingException ({@code datastore_missing}) if there is no
   *     datastore at the URI (a filesystem datastore's directory is missing); nothing was created
   */
  static Datastore open(URI uri) {
    return providerOf(uri).open(uri);
  }

  /**
   * Creates the datastore a URI names if it is missing (as its provider can: a filesystem
   * datastore's directory; a bucket is never created), then opens it. The caller closes it.
   *
   * @param uri the datastore's URI
   * @return the datastore, open
   * @throws InvalidInputException ({@code unknown_scheme}) if no provider handles the scheme
   * @throws IllegalArgumentException if the provider refuses the URI; the message says why
   * @throws dev.tierlock.spi.DatastoreException if it cannot be created
   */
  static Datastore create(URI uri) {
    return providerOf(uri).create(uri);
  }

  private static DatastoreProvider providerOf(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    // lazily, in order, stopping at the first match: the providers after it are never instantiated
    for (DatastoreProvider provider : providers()) {
      if (provider.scheme().equals(scheme)) {
        return provider;
      }
    }
    String shown = uri.getUserInfo() == null ? uri.toString() : uri.toString().replace(uri.getRawUserInfo() + "@", "");
    throw InvalidInputException.scheme(shown, schemes());
  }

  /** {@return the schemes the registered providers open, sorted} */
  static List<String> schemes() {
    TreeSet<String> schemes = new TreeSet<>();
    providers().forEach(p -> schemes.add(p.scheme()));
    return List.copyOf(schemes);
  }

  private static ServiceLoader<DatastoreProvider> providers() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    return loader == null
        ? ServiceLoader.load(DatastoreProvider.class, Datastores.class.getClassLoader())
        : ServiceLoader.load(DatastoreProvider.class, loader);
  }
}
