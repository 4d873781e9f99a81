package dev.tierlock.benchmarks;

import dev.tierlock.datastore.s3.S3Datastore;
import dev.tierlock.datastore.s3.S3DatastoreConfig;
import dev.tierlock.spi.Datastore;
import java.net.URI;
import org.gaul.s3proxy.AccessGrant;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * A real S3 server in this JVM, started as the S3 module's tests start theirs: S3Proxy 4.1.0 on
 * {@code http://127.0.0.1:<free port>}, its in-memory store with S3's flat key space and atomic
 * conditional writes, fixed credentials; the AWS SDK v2 client path-style, {@code us-east-1},
 * without {@code Expect: 100-continue}. Each store is a fresh bucket, deleted when closed.
 */
final class S3ProxyStores implements StoreKind {

  private static final String ACCESS_KEY = "tierlock-bench-access";
  private static final String SECRET_KEY = "tierlock-bench-secret";

  private final S3Proxy proxy;
  private final BlobStore store;
  private final S3Client client;
  private int buckets;

  private S3ProxyStores(S3Proxy proxy, BlobStore store, S3Client client) {
    this.proxy = proxy;
    this.store = store;
    this.client = client;
  }

  /** Starts the server. */
  static S3ProxyStores start() throws Exception {
    BlobStore store = new FlatKeysBlobStore(new TransientNio2BlobStore());
    S3Proxy proxy = S3Proxy.builder()
        .blobStore(store)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .build();
    proxy.setBlobStoreLocator((identity, container, blob) -> ACCESS_KEY.equals(identity)
        ? new AccessGrant(SECRET_KEY, new AtomicConditionsBlobStore(store))
        : null);
    proxy.start();
    if (!"STARTED".equals(proxy.getState())) {
      throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
    }
    S3Client client = S3Client.builder()
        .endpointOverride(URI.create("http://127.0.0.1:" + proxy.getPort()))
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).expectContinueEnabled(false).build())
        .httpClientBuilder(Apache5HttpClient.builder().expectContinueEnabled(false).maxConnections(64))
        .build();
    return new S3ProxyStores(proxy, store, client);
  }

  @Override
  public String label() {
    return "S3 (S3Proxy 4.1.0 on 127.0.0.1, in-memory)";
  }

  @Override
  public String slug() {
    return "s3";
  }

  @Override
  public Datastore fresh() {
    String bucket = "tierlock-bench-" + (++buckets);
    client.createBucket(b -> b.bucket(bucket));
    S3Datastore datastore = S3Datastore.of(client, S3DatastoreConfig.builder(bucket).prefix("tier").build());
    return new ClosingDatastore(datastore, () -> store.deleteContainer(bucket));
  }

  @Override
  public void close() {
    client.close();
    try {
      proxy.stop();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot stop S3Proxy: " + e, e);
    }
  }
}
