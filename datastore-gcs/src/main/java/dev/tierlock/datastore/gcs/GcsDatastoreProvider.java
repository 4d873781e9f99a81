package dev.tierlock.datastore.gcs;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.StorageOptions;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreProvider;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Opens {@link GcsDatastore}s for URIs of scheme {@code gs}: {@code gs://bucket/prefix}, with
 * credentials and project from Application Default Credentials. Registered with {@link
 * java.util.ServiceLoader}.
 *
 * <p>Query parameters, all optional:
 *
 * <ul>
 *   <li>{@code endpoint}: an {@code http} or {@code https} URL of a GCS JSON-API server (an emulator
 *       or a test server); no credentials are sent to it;
 *   <li>{@code project}: the project id (default: from the environment, or {@code test} with an
 *       endpoint);
 *   <li>{@code timeout}: the call timeout as an ISO-8601 duration such as {@code PT10S} (default
 *       {@link GcsDatastore#DEFAULT_CALL_TIMEOUT}).
 * </ul>
 *
 * <p>Thread-safe; each {@link #open} builds a new client that the datastore owns and closes.
 */
public final class GcsDatastoreProvider implements DatastoreProvider {

  private static final Set<String> PARAMETERS = Set.of("endpoint", "project", "timeout");

  /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
  public GcsDatastoreProvider() {}

  @Override
  public String scheme() {
    return "gs";
  }

  /**
   * Opens the datastore a {@code gs://} URI names.
   *
   * @throws IllegalArgumentException if the URI is not a valid {@code gs://bucket/prefix} URI or a
   *     query parameter is unknown or invalid
   */
  @Override
  public Datastore open(URI uri) {
    if (!"gs".equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException("Cannot open " + uri + ": the GCS provider opens gs:// URIs only");
    }
    String bucket = uri.getRawAuthority();
    if (bucket == null || bucket.isEmpty() || uri.isOpaque()) {
      throw new IllegalArgumentException("Cannot open " + uri + ": expected gs://bucket/prefix");
    }
    if (uri.getRawFragment() != null) {
      throw new IllegalArgumentException("Cannot open " + uri + ": a gs:// URI has no fragment");
    }
    Map<String, String> query = query(uri);
    GcsLocation location = GcsLocation.of(bucket, uri.getPath() == null ? "" : uri.getPath());
    Duration timeout = timeout(uri, query.get("timeout"));
    String endpoint = query.get("endpoint");
    if (endpoint != null) {
      URI parsed = URI.create(endpoint);
      if (!("http".equals(parsed.getScheme()) || "https".equals(parsed.getScheme())) || parsed.getHost() == null) {
        throw new IllegalArgumentException("Cannot open " + uri + ": endpoint " + endpoint
            + " is not an http or https URL");
      }
    }
    return GcsDatastore.fromOptions(Client.options(endpoint, query.get("project")), location, timeout);
  }

  /**
   * Builds the client options. A class of its own, so that loading, verifying and asking the
   * provider its scheme touches no class of google-cloud-storage: a call that opens another scheme
   * loads none of it.
   */
  private static final class Client {
    private Client() {}

    static StorageOptions options(@Nullable String endpoint, @Nullable String project) {
      StorageOptions.Builder options = StorageOptions.http();
      if (endpoint != null) {
        options.setHost(endpoint).setCredentials(NoCredentials.getInstance());
        options.setProjectId(project == null ? "test" : project);
      } else if (project != null) {
        options.setProjectId(project);
      }
      return options.build();
    }
  }

  private static Duration timeout(URI uri, @Nullable String text) {
    if (text == null) {
      return GcsDatastore.DEFAULT_CALL_TIMEOUT;
    }
    try {
      Duration timeout = Duration.parse(text);
      if (!timeout.isNegative() && !timeout.isZero()) {
        return timeout;
      }
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("Cannot open " + uri + ": timeout " + text
          + " is not an ISO-8601 duration such as PT10S", e);
    }
    throw new IllegalArgumentException("Cannot open " + uri + ": timeout " + text + " is not positive");
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> out = new LinkedHashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      if (!PARAMETERS.contains(name)) {
        throw new IllegalArgumentException("Cannot open " + uri + ": unknown query parameter " + name
            + " (known: endpoint, project, timeout)");
      }
      if (out.putIfAbsent(name, value) != null) {
        throw new IllegalArgumentException("Cannot open " + uri + ": query parameter " + name + " given twice");
      }
    }
    return out;
  }
}
