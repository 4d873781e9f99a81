package dev.tierlock.spi;

import java.net.URI;

/**
 * Opens datastores of one URI scheme. Registered with {@link java.util.ServiceLoader} in {@code
 * META-INF/services/dev.tierlock.spi.DatastoreProvider}, and found by {@link
 * dev.tierlock.Tierlock.Builder#datastore(URI)}.
 */
public interface DatastoreProvider {

  /** {@return the URI scheme this provider opens, lowercase ({@code s3}, {@code gs}, {@code file})} */
  String scheme();

  /**
   * Opens the datastore a URI names. Opening never creates a datastore: where the provider can
   * tell that none is there (a filesystem datastore's missing directory), it refuses, so that a
   * mistyped address is an error, not a new empty datastore; {@link #create} creates one.
   *
   * @param uri the datastore's URI, of a scheme this provider accepts
   * @return the open datastore; the caller closes it
   * @throws IllegalArgumentException if the URI is not one this provider accepts; the message
   *     says what is wrong
   * @throws DatastoreMissingException ({@code datastore_missing}) if the provider can tell that
   *     there is no datastore at the URI; nothing was created
   */
  Datastore open(URI uri);

  /**
   * Creates the datastore a URI names when it is missing, then opens it: what {@code tierlock
   * init} and {@code Tierlock.Builder#createDatastore()} call. By default it only {@linkplain
   * #open opens} it, for a provider whose datastores are made elsewhere (a bucket is created by
   * its operator, not by Tierlock); the filesystem provider creates the directory.
   *
   * @param uri the datastore's URI, of a scheme this provider accepts
   * @return the open datastore; the caller closes it
   * @throws IllegalArgumentException if the URI is not one this provider accepts; the message
   *     says what is wrong
   * @throws DatastoreException if the datastore cannot be created (access denied, unavailable)
   */
  default Datastore create(URI uri) {
    return open(uri);
  }
}
