package dev.tierlock.datastore.gcs;

import com.google.api.gax.retrying.RetrySettings;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import java.time.Duration;
import java.util.Locale;

/**
 * The two clients a {@link GcsDatastore} works through, both built from one {@link StorageOptions}
 * (same credentials, endpoint, project, transport and headers) with Tierlock's deadline and retry
 * settings on top:
 *
 * <ul>
 *   <li>{@code reads} (get, download, list): the options' retries, bounded by the call timeout in
 *       total, each attempt by the call timeout;
 *   <li>{@code changes} (write, delete): <b>exactly one attempt</b> ({@code maxAttempts = 1}), so a
 *       412 can only be the answer to the one request this call sent, never to a retry of a request
 *       that had landed. Retrying is left to Tierlock's core, which can tell its own landed write
 *       from a peer's by the commit id.
 * </ul>
 *
 * <p>On the HTTP transport both clients' connect and read timeouts are the call timeout. Both are
 * {@linkplain GcsCallGuard guarded}: every failure of theirs is a {@code StorageException}. Closing
 * closes both (they are Tierlock's own), never the client the options came from.
 *
 * @param reads the client for reads
 * @param changes the client for writes and deletes
 * @param host the host both send to: the options' {@link StorageOptions#getHost()}, which the
 *     HTTP transport uses as its root URL, without user information, in lowercase and without a
 *     trailing {@code /}
 */
record GcsClients(Storage reads, Storage changes, String host) {

  /** Builds the two clients. */
  static GcsClients derive(StorageOptions options, Duration callTimeout) {
    RetrySettings base = options.getRetrySettings();
    RetrySettings reads = base.toBuilder()
        .setTotalTimeoutDuration(callTimeout)
        .setInitialRpcTimeoutDuration(callTimeout)
        .setMaxRpcTimeoutDuration(callTimeout)
        .build();
    RetrySettings changes = reads.toBuilder().setMaxAttempts(1).build();
    return new GcsClients(build(options, reads, callTimeout), build(options, changes, callTimeout), hostOf(options));
  }

  /** Returns the host of {@code options} in the canonical form of {@link #host()}. */
  static String hostOf(StorageOptions options) {
    String host = options.getHost();
    if (host == null || host.isBlank()) {
      return GcsDatastore.GOOGLE_HOST;
    }
    int scheme = host.indexOf("://");
    String rest = scheme < 0 ? host : host.substring(scheme + 3);
    int slash = rest.indexOf('/');
    String authority = slash < 0 ? rest : rest.substring(0, slash);
    String path = slash < 0 ? "" : rest.substring(slash);
    authority = authority.substring(authority.lastIndexOf('@') + 1).toLowerCase(Locale.ROOT);
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return (scheme < 0 ? "" : host.substring(0, scheme).toLowerCase(Locale.ROOT) + "://") + authority + path;
  }

  private static Storage build(StorageOptions options, RetrySettings retry, Duration callTimeout) {
    StorageOptions.Builder builder = options.toBuilder().setRetrySettings(retry);
    if (options.getTransportOptions() instanceof HttpTransportOptions http) {
      int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, callTimeout.toMillis()));
      builder.setTransportOptions(http.toBuilder().setConnectTimeout(millis).setReadTimeout(millis).build());
    }
    return GcsCallGuard.guard(builder.build().getService());
  }

  /** Closes both clients. */
  void close() throws Exception {
    try {
      reads.close();
    } finally {
      changes.close();
    }
  }
}
