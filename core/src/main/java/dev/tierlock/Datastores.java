package dev.tierlock;

import dev.tierlock.spi.DatastoreUnsafeException;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreProvider;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Finds and guards datastores: {@link #open(URI)} looks a URI's scheme up among the {@link
 * DatastoreProvider}s registered with {@link ServiceLoader}; {@link #selfChecked(Datastore)} makes a
 * datastore prove that it honours write preconditions before its first write. Stateless and
 * thread-safe.
 */
public final class Datastores {

  private Datastores() {}

  /**
   * Opens the datastore a URI names ({@code s3://bucket/prefix}, {@code gs://bucket/prefix}, {@code
   * file:///path}), through the provider of its scheme found on the thread's context class loader.
   * The caller closes it.
   *
   * @param uri the datastore's URI
   * @return the datastore, open
   * @throws UnknownSchemeException if no provider handles the scheme; the message lists those found
   * @throws IllegalArgumentException if the provider refuses the URI; the message says why
   */
  public static Datastore open(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    List<DatastoreProvider> providers = providers();
    for (DatastoreProvider provider : providers) {
      if (provider.scheme().equals(scheme)) {
        return provider.open(uri);
      }
    }
    String shown = uri.getUserInfo() == null ? uri.toString() : uri.toString().replace(uri.getRawUserInfo() + "@", "");
    throw new UnknownSchemeException(shown, schemes());
  }

  /** {@return the schemes the registered providers open, sorted} */
  public static List<String> schemes() {
    TreeSet<String> schemes = new TreeSet<>();
    providers().forEach(p -> schemes.add(p.scheme()));
    return List.copyOf(schemes);
  }

  /**
   * Returns {@code datastore} guarded by the precondition self-check: before its first write or
   * delete, it proves (on a probe key under {@code .tierlock-selfcheck/}, removed afterwards by
   * conditional deletes) that a create-only write over an existing object fails and that a write
   * conditional on a stale version fails. Until the check has passed, every write and delete runs
   * it first; once passed it never runs again for this guard. Reads are never checked. Returns
   * {@code datastore} itself when it is already guarded. Closing the guard closes {@code
   * datastore}.
   *
   * <p>A pass is also remembered for the process by {@link Datastore#describe()}. A guard used on
   * its own checks once; a {@link Tierlock} built on a guard (or on a plain datastore, which it
   * guards itself) lets it skip the check when this process, or a marker in the checkout's state
   * directory younger than 24 hours, already holds a pass (see {@link Tierlock#checkDatastore()}).
   *
   * <p>A write through the guard throws {@link DatastoreUnsafeException} (naming {@link
   * Datastore#describe()}) if the store ignored a precondition, and the store's own exception if it
   * failed during the check (the check then runs again on the next write).
   *
   * @param datastore the datastore to guard
   * @return the guard (or datastore itself when already guarded)
   */
  public static Datastore selfChecked(Datastore datastore) {
    if (datastore instanceof SelfCheckedDatastore) {
      return datastore;
    }
    return new SelfCheckedDatastore(datastore);
  }

  private static List<DatastoreProvider> providers() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    ServiceLoader<DatastoreProvider> found = loader == null
        ? ServiceLoader.load(DatastoreProvider.class, Datastores.class.getClassLoader())
        : ServiceLoader.load(DatastoreProvider.class, loader);
    List<DatastoreProvider> out = new ArrayList<>();
    found.forEach(out::add);
    return out;
  }
}
