/**
 * Tierlock's GCS datastore on google-cloud-storage (HTTP transport), for {@code gs://} URIs or a
 * caller's {@code Storage}.
 *
 * <p>Google's jars have no descriptors and no {@code Automatic-Module-Name}: the four required here
 * are automatic modules named after their files. The rest of Google's and gRPC's jars split
 * packages between them ({@code com.google.cloud}, {@code com.google.longrunning}, {@code
 * com.google.storage.v2}, {@code javax.annotation}), so on the module path they go on the class
 * path beside it, which automatic modules read.
 */
// The library this module is written on, and exposes, has only automatic modules.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.tierlock.datastore.gcs {
  requires transitive dev.tierlock.core;
  requires transitive google.cloud.storage;
  requires google.cloud.core;
  requires google.cloud.core.http;
  requires gax;
  requires static transitive org.jspecify;

  exports dev.tierlock.datastore.gcs;

  provides dev.tierlock.spi.DatastoreProvider with dev.tierlock.datastore.gcs.GcsDatastoreProvider;
}
