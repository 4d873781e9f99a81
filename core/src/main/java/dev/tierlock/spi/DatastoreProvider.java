package dev.tierlock.spi;

import java.net.URI;

/**
 * Opens datastores of one URI scheme. Registered with {@link java.util.ServiceLoader} in {@code
 * META-INF/services/dev.tierlock.spi.DatastoreProvider}, and found by {@link
 * dev.tierlock.Datastores#open(URI)}.
 */
public interface DatastoreProvider {

  /** {@return the URI scheme this provider opens, lowercase ({@code s3}, {@code gs}, {@code file})} */
  String scheme();

  /**
   * Opens the datastore a URI names.
   *
   * @param uri the datastore's URI, of a scheme this provider accepts
   * @return the open datastore; the caller closes it
   * @throws IllegalArgumentException if the URI is not one this provider accepts; the message
   *     says what is wrong
   */
  Datastore open(URI uri);
}
