package dev.tierlock.datastore.s3;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreProvider;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Opens {@link S3Datastore}s from URIs of the form
 *
 * <pre>s3://bucket/prefix?region=eu-west-1&amp;endpoint=https://s3.example.net&amp;pathStyle=true</pre>
 *
 * <p>The authority is the bucket and the path the key prefix (empty for the bucket root). Every
 * query parameter is optional:
 *
 * <ul>
 *   <li>{@code region}: the AWS region; without it the SDK's default region chain decides ({@code
 *       AWS_REGION}, the {@code aws.region} system property, the profile);
 *   <li>{@code endpoint}: an {@code http} or {@code https} URI of an S3-compatible endpoint;
 *   <li>{@code pathStyle}: {@code true} for path-style addressing (most S3-compatible servers),
 *       {@code false} (the default) for virtual-hosted style;
 *   <li>{@code apiCallTimeout}, {@code apiCallAttemptTimeout}: ISO-8601 durations such as {@code
 *       PT30S}, overriding the defaults of {@link S3DatastoreConfig}.
 * </ul>
 *
 * <p>Credentials come from the SDK's default provider chain (environment, system properties, web
 * identity, profile, container and instance credentials). The datastore owns the client it builds
 * and closes it. To control anything else, build an {@link S3Client} and use {@link
 * S3Datastore#of}. Registered with {@link java.util.ServiceLoader}; stateless and thread-safe.
 */
public final class S3DatastoreProvider implements DatastoreProvider {

  /** The URI scheme this provider opens. */
  public static final String SCHEME = "s3";

  private static final Set<String> PARAMETERS =
      Set.of("region", "endpoint", "pathStyle", "apiCallTimeout", "apiCallAttemptTimeout");

  /** Creates the provider; called by {@link java.util.ServiceLoader}. */
  public S3DatastoreProvider() {}

  @Override
  public String scheme() {
    return SCHEME;
  }

  /**
   * Opens the datastore a URI names, building an S3 client for it.
   *
   * @throws IllegalArgumentException if the URI is not an {@code s3://} URI, names no valid bucket,
   *     has a bad prefix, user information, a port, a fragment, an unknown, repeated or malformed
   *     parameter, or no region can be found; the message says which
   */
  @Override
  public Datastore open(URI uri) {
    String shown = withoutQuery(uri);
    if (!SCHEME.equalsIgnoreCase(uri.getScheme()) || uri.isOpaque()) {
      throw invalid(shown, "the URI is not of the form s3://bucket/prefix");
    }
    String bucket = uri.getRawAuthority();
    if (bucket == null || bucket.isEmpty()) {
      throw invalid(shown, "the URI names no bucket");
    }
    if (bucket.contains("@") || bucket.contains(":")) {
      throw invalid(shown, "the bucket part holds user information or a port");
    }
    if (uri.getRawFragment() != null) {
      throw invalid(shown, "the URI has a fragment");
    }
    Map<String, String> parameters = parameters(uri, shown);
    S3DatastoreConfig.Builder config = S3DatastoreConfig.builder(bucket)
        .prefix(uri.getPath() == null ? "" : uri.getPath());
    if (parameters.containsKey("apiCallTimeout")) {
      config.apiCallTimeout(duration(parameters, "apiCallTimeout", shown));
    }
    if (parameters.containsKey("apiCallAttemptTimeout")) {
      config.apiCallAttemptTimeout(duration(parameters, "apiCallAttemptTimeout", shown));
    }
    S3DatastoreConfig built;
    try {
      built = config.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot open " + shown + ": " + e.getMessage(), e);
    }
    return S3Datastore.owning(Client.build(parameters, shown), built);
  }

  /**
   * Builds the client. A class of its own, so that loading, verifying and asking the provider its
   * scheme touches no class of the AWS SDK: a call that opens another scheme loads none of it.
   */
  private static final class Client {
    private Client() {}

    static S3Client build(Map<String, String> parameters, String shown) {
      // no credentials provider is set: the client then uses, and closes, the SDK's default chain
      S3ClientBuilder builder = S3Client.builder().forcePathStyle(pathStyle(parameters, shown));
      if (parameters.containsKey("region")) {
        String region = parameters.get("region");
        if (!region.matches("[a-z0-9-]{1,64}")) {
          throw invalid(shown, "region \"" + region + "\" is not a region name");
        }
        builder.region(Region.of(region));
      }
      if (parameters.containsKey("endpoint")) {
        builder.endpointOverride(endpoint(parameters.get("endpoint"), shown));
      }
      try {
        return builder.build();
      } catch (SdkClientException e) {
        throw new IllegalArgumentException("Cannot open " + shown + ": the S3 client cannot be built ("
            + e.getMessage() + "); add ?region=... or set AWS_REGION", e);
      }
    }
  }

  private static Map<String, String> parameters(URI uri, String shown) {
    Map<String, String> parameters = new LinkedHashMap<>();
    String query = uri.getRawQuery();
    if (query == null || query.isEmpty()) {
      return parameters;
    }
    for (String pair : query.split("&", -1)) {
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw invalid(shown, "parameter \"" + pair + "\" is not of the form name=value");
      }
      String name = URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8);
      String value = URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
      if (!PARAMETERS.contains(name)) {
        throw invalid(shown, "unknown parameter \"" + name + "\" (known: " + String.join(", ", PARAMETERS.stream().sorted().toList()) + ")");
      }
      if (parameters.put(name, value) != null) {
        throw invalid(shown, "parameter \"" + name + "\" is given twice");
      }
    }
    return parameters;
  }

  private static boolean pathStyle(Map<String, String> parameters, String shown) {
    String value = parameters.getOrDefault("pathStyle", "false").toLowerCase(Locale.ROOT);
    if (!value.equals("true") && !value.equals("false")) {
      throw invalid(shown, "pathStyle is true or false, not \"" + parameters.get("pathStyle") + "\"");
    }
    return value.equals("true");
  }

  private static URI endpoint(String value, String shown) {
    URI endpoint;
    try {
      endpoint = URI.create(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot open " + shown + ": endpoint \"" + value + "\" is not a URI", e);
    }
    String scheme = endpoint.getScheme();
    if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme) || endpoint.getHost() == null) {
      throw invalid(shown, "endpoint \"" + value + "\" is not an http or https URI with a host");
    }
    if (endpoint.getRawUserInfo() != null) {
      throw invalid(shown, "endpoint holds user information; credentials come from the SDK's provider chain");
    }
    return endpoint;
  }

  private static Duration duration(Map<String, String> parameters, String name, String shown) {
    String value = parameters.get(name);
    try {
      return Duration.parse(value);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "Cannot open " + shown + ": " + name + " \"" + value + "\" is not an ISO-8601 duration such as PT30S", e);
    }
  }

  private static String withoutQuery(URI uri) {
    String text = uri.toString();
    int query = text.indexOf('?');
    return query < 0 ? text : text.substring(0, query);
  }

  private static IllegalArgumentException invalid(String shown, String reason) {
    return new IllegalArgumentException("Cannot open " + shown + ": " + reason);
  }
}
