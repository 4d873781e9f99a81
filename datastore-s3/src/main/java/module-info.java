/**
 * Tierlock's S3 datastore on the AWS SDK for Java v2, for {@code s3://} URIs or a caller's {@code
 * S3Client}. The SDK's jars have no descriptors: they are automatic modules under the {@code
 * Automatic-Module-Name}s their manifests give.
 */
// Facts of this module, not mistakes: its name ends in the digit of "s3" (the name it had as an
// automatic module), and the SDK it is written on, and exposes, has only automatic modules.
@SuppressWarnings({"module", "requires-automatic", "requires-transitive-automatic"})
module dev.tierlock.datastore.s3 {
  requires transitive dev.tierlock.core;
  requires transitive software.amazon.awssdk.services.s3;
  requires software.amazon.awssdk.awscore;
  requires software.amazon.awssdk.core;
  requires software.amazon.awssdk.endpoints;
  requires software.amazon.awssdk.http;
  requires software.amazon.awssdk.regions;
  // The HTTP client the s3 artifact brings (Apache HttpClient 5, used when a URI opens the store)
  // sets socket options through jdk.net; as an automatic module or on the class path it cannot ask
  // for it, and on the module path nothing else puts it in the graph.
  requires jdk.net;
  requires static transitive org.jspecify;

  exports dev.tierlock.datastore.s3;

  provides dev.tierlock.spi.DatastoreProvider with dev.tierlock.datastore.s3.S3DatastoreProvider;
}
