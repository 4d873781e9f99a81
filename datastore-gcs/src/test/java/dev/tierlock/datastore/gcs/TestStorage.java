package dev.tierlock.datastore.gcs;

import com.google.api.gax.retrying.RetrySettings;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Real google-cloud-storage clients (and a raw HTTP client) pointed at a {@link GcsFakeServer}. */
final class TestStorage {

  private static final HttpClient RAW = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private TestStorage() {}

  /**
   * Returns the options of a client as a user would configure one for an emulator: no credentials,
   * project {@code test}, the library's retries (6 attempts) with millisecond backoff so that
   * retried tests stay fast.
   */
  static StorageOptions options(GcsFakeServer server) {
    return StorageOptions.http()
        .setHost(server.endpoint().toString())
        .setProjectId("test")
        .setCredentials(NoCredentials.getInstance())
        .setRetrySettings(RetrySettings.newBuilder()
            .setMaxAttempts(6)
            .setInitialRetryDelayDuration(Duration.ofMillis(1))
            .setRetryDelayMultiplier(2)
            .setMaxRetryDelayDuration(Duration.ofMillis(8))
            .setTotalTimeoutDuration(Duration.ofSeconds(20))
            .setInitialRpcTimeoutDuration(Duration.ofSeconds(20))
            .setMaxRpcTimeoutDuration(Duration.ofSeconds(20))
            .build())
        .build();
  }

  /** Returns a client that retries (the library's behaviour). */
  static Storage retrying(GcsFakeServer server) {
    return options(server).getService();
  }

  /** Returns a client that makes exactly one attempt per call, so tests see each answer as sent. */
  static Storage singleAttempt(GcsFakeServer server) {
    StorageOptions options = options(server);
    return options.toBuilder()
        .setRetrySettings(options.getRetrySettings().toBuilder().setMaxAttempts(1).build())
        .build()
        .getService();
  }

  /** Sends a raw request to the server, for wire details the client library hides. */
  static HttpResponse<byte[]> raw(GcsFakeServer server, String method, String pathAndQuery,
      HttpRequest.BodyPublisher body, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.endpoint() + pathAndQuery))
        .timeout(Duration.ofSeconds(10))
        .method(method, body);
    if (headers.length > 0) {
      request.headers(headers);
    }
    return RAW.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }
}
