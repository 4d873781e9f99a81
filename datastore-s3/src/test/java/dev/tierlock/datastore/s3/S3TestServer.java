package dev.tierlock.datastore.s3;

import java.net.URI;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.gaul.s3proxy.AccessGrant;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * One S3Proxy 4.1.0 server per test JVM on {@code http://127.0.0.1:<port>}: its in-memory store
 * with S3's flat key space ({@link FlatKeysBlobStore}) and conditional writes made atomic per key
 * ({@link AtomicConditionsBlobStore}), fixed test credentials, AWS signature v2 or v4. Started on first use, stopped when the JVM exits. Hands out
 * fresh buckets and S3 clients set up for it. Thread-safe.
 */
final class S3TestServer {

  /** The access key every test client signs with. */
  static final String ACCESS_KEY = "tierlock-test-access";
  /** The secret key every test client signs with. */
  static final String SECRET_KEY = "tierlock-test-secret";

  private static final Object START = new Object();
  private static volatile S3TestServer instance;

  private final S3Proxy proxy;
  private final BlobStore store;
  private final ServerState state = new ServerState();
  private final URI endpoint;
  private final S3Client client;
  private final AtomicLong buckets = new AtomicLong();

  private S3TestServer() throws Exception {
    store = new FlatKeysBlobStore(new TransientNio2BlobStore());
    proxy = S3Proxy.builder()
        .blobStore(store)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .build();
    proxy.setBlobStoreLocator((identity, container, blob) -> ACCESS_KEY.equals(identity)
        ? new AccessGrant(SECRET_KEY, new AtomicConditionsBlobStore(store, state))
        : null);
    proxy.start(); // Jetty's start returns once the server is started
    if (!"STARTED".equals(proxy.getState())) {
      throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
    }
    endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    client = newClient(endpoint, List.of());
  }

  /** Returns the server, starting it on first use. */
  static S3TestServer instance() {
    S3TestServer server = instance;
    if (server == null) {
      synchronized (START) {
        server = instance;
        if (server == null) {
          try {
            server = new S3TestServer();
          } catch (Exception e) {
            throw new IllegalStateException("Cannot start the test S3 server: " + e, e);
          }
          instance = server;
          S3TestServer started = server;
          Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "s3-test-server-stop"));
        }
      }
    }
    return server;
  }

  /** Returns the server's address. */
  URI endpoint() {
    return endpoint;
  }

  /** Returns the shared client of every test (not to be closed). */
  S3Client client() {
    return client;
  }

  /** Returns the per-bucket behaviour controls. */
  ServerState state() {
    return state;
  }

  /** Creates a fresh, empty bucket. */
  String createBucket() {
    String bucket = "tierlock-" + ProcessHandle.current().pid() + "-" + buckets.incrementAndGet();
    client.createBucket(b -> b.bucket(bucket));
    return bucket;
  }

  /** Deletes a bucket and everything in it, straight in the store (no request per object). */
  void deleteBucket(String bucket) {
    state.forget(bucket);
    store.deleteContainer(bucket);
  }

  /**
   * Builds a client for {@code endpoint} (this server, or a proxy in front of it): path-style,
   * {@code us-east-1}, the test credentials, no {@code Expect: 100-continue} (S3Proxy's early 412
   * answers to it break pooled connections), and retries without backoff so that no test sleeps.
   * The caller closes it.
   */
  static S3Client newClient(URI endpoint, List<ExecutionInterceptor> interceptors) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).expectContinueEnabled(false).build())
        .httpClientBuilder(Apache5HttpClient.builder().expectContinueEnabled(false).maxConnections(64))
        .overrideConfiguration(o -> {
          o.retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
              .backoffStrategy(BackoffStrategy.retryImmediately())
              .throttlingBackoffStrategy(BackoffStrategy.retryImmediately())
              .build());
          interceptors.forEach(o::addExecutionInterceptor);
        })
        .build();
  }

  private void stop() {
    try {
      client.close();
      proxy.stop();
    } catch (Exception e) {
      // the JVM is exiting; nothing is left to clean
      Thread.currentThread().interrupt();
    }
  }
}
