package dev.tierlock.datastore.s3;

import dev.tierlock.spi.DatastoreIdentity;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.endpoints.EndpointProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointParams;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;

/**
 * The {@link DatastoreIdentity} of an S3 datastore: scheme {@code s3}, the endpoint its client
 * sends to, the bucket and the key prefix. The endpoint is read from the client's own
 * configuration, so a caller's client is described as it really is:
 *
 * <ul>
 *   <li>its endpoint override, when it has one (an S3-compatible server, a proxy), without user
 *       information, with scheme and host in lowercase and no trailing {@code /};
 *   <li>otherwise what the client's S3 endpoint provider (the SDK's default one unless the caller
 *       set another) resolves for the client's region and no bucket: the regional AWS endpoint,
 *       such as {@code https://s3.eu-west-1.amazonaws.com} ({@code .amazonaws.com.cn} in China).
 *       FIPS, dual-stack and accelerated endpoints of a region reach the same buckets and are not
 *       told apart.
 * </ul>
 */
final class S3Identity {

  /** The identity scheme of every S3 datastore. */
  static final String SCHEME = "s3";

  private S3Identity() {}

  /**
   * Returns the identity of a datastore on {@code config}'s bucket and prefix through {@code client}.
   *
   * @throws IllegalArgumentException if the client has no endpoint override and its endpoint
   *     cannot be resolved for its region
   */
  static DatastoreIdentity of(S3Client client, S3DatastoreConfig config) {
    S3ServiceClientConfiguration configuration = client.serviceClientConfiguration();
    String endpoint = configuration.endpointOverride()
        .map(S3Identity::normalised)
        .orElseGet(() -> regional(configuration, config.bucket()));
    return new DatastoreIdentity(SCHEME, endpoint, config.bucket(), config.prefix());
  }

  /** Returns an endpoint override without user information, query or fragment, in a canonical case. */
  static String normalised(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return scheme + "://" + host + (uri.getPort() < 0 ? "" : ":" + uri.getPort()) + path;
  }

  private static String regional(S3ServiceClientConfiguration configuration, String bucket) {
    Region region = configuration.region();
    Optional<EndpointProvider> configured = configuration.endpointProvider();
    S3EndpointProvider provider = configured.isPresent() && configured.get() instanceof S3EndpointProvider s3
        ? s3 : S3EndpointProvider.defaultProvider();
    try {
      return normalised(provider.resolveEndpoint(S3EndpointParams.builder().region(region).build()).join().endpointUrl().toUri());
    } catch (CompletionException | SdkException e) {
      throw new IllegalArgumentException("Cannot use the S3 client for bucket " + bucket + ": it has no endpoint"
          + " override and its endpoint provider resolves none for region " + region + " (" + e.getMessage() + ")", e);
    }
  }
}
