package dev.tierlock.datastore.s3;

import static dev.tierlock.datastore.s3.S3DatastoreTest.body;
import static dev.tierlock.datastore.s3.S3DatastoreTest.rawKeys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/** What an {@link S3Datastore} says it is, and its metadata and read bounds, against the test server. */
@ExtendWith(S3ServerExtension.class)
class S3DatastoreLimitsTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  @Test
  void identity_withAnEndpointOverride_isThatEndpointTheBucketAndThePrefix(S3TestBucket bucket) {
    DatastoreIdentity identity = bucket.datastore("/team/tier").identity();

    assertThat(identity).isEqualTo(new DatastoreIdentity("s3", bucket.server().endpoint().toString(), bucket.name(),
        "team/tier/"));
    assertThat(identity.toString())
        .isEqualTo("s3://" + bucket.name() + "/team/tier/ at " + bucket.server().endpoint());
  }

  @Test
  void identity_isEqualOnlyForTheSameEndpointBucketAndPrefix(S3TestBucket bucket, S3TestBucket other) {
    DatastoreIdentity identity = bucket.datastore("team").identity();

    assertThat(bucket.datastore("team/").identity()).isEqualTo(identity);
    assertThat(bucket.datastore("team/sub").identity()).isNotEqualTo(identity);
    assertThat(bucket.datastore("").identity()).isNotEqualTo(identity);
    assertThat(other.datastore("team").identity()).isNotEqualTo(identity);
    try (FaultProxy proxy = FaultProxy.start(bucket.server().endpoint());
        S3Client viaProxy = S3TestServer.newClient(proxy.endpoint(), List.of())) {
      assertThat(bucket.datastore("team", viaProxy, b -> b).identity())
          .as("the same bucket through another endpoint").isNotEqualTo(identity);
    } catch (IOException e) {
      throw new AssertionError("Cannot start the proxy: " + e, e);
    }
  }

  @Test
  void identity_withoutAnOverride_isTheRegionalAwsEndpointTheClientResolves() {
    for (Map.Entry<String, String> region : Map.of(
        "eu-west-1", "https://s3.eu-west-1.amazonaws.com",
        "us-east-1", "https://s3.us-east-1.amazonaws.com",
        "cn-north-1", "https://s3.cn-north-1.amazonaws.com.cn").entrySet()) {
      try (S3Client client = awsClient(Region.of(region.getKey()), null)) {
        S3Datastore datastore = S3Datastore.of(client, S3DatastoreConfig.of("my-bucket", "tier"));

        assertThat(datastore.identity()).as("region %s", region.getKey())
            .isEqualTo(new DatastoreIdentity("s3", region.getValue(), "my-bucket", "tier/"));
      }
    }
  }

  @Test
  void identity_ofAnOverride_dropsUserInformationCaseAndATrailingSlash() {
    try (S3Client client = awsClient(Region.US_EAST_1, URI.create("HTTP://someone:secret@Store.Example:9000/s3/"))) {
      DatastoreIdentity identity = S3Datastore.of(client, S3DatastoreConfig.of("my-bucket", "")).identity();

      assertThat(identity).isEqualTo(new DatastoreIdentity("s3", "http://store.example:9000/s3", "my-bucket", ""));
      assertThat(identity.toString()).doesNotContain("secret").doesNotContain("someone");
    }
  }

  @Test
  void maxMetadataBytes_isTwoKilobytes(S3TestBucket bucket) {
    assertThat(bucket.datastore("").maxMetadataBytes()).isEqualTo(S3Datastore.MAX_METADATA_BYTES).isEqualTo(2048);
  }

  @Test
  void write_withMoreThanTwoKilobytesOfMetadata_isRefusedBeforeAnyRequest(S3TestBucket bucket) {
    AtomicInteger requests = new AtomicInteger();
    try (S3Client client = S3TestServer.newClient(bucket.server().endpoint(), List.of(countRequests(requests)))) {
      S3Datastore datastore = bucket.datastore("", client, b -> b);
      ObjectMetadata over = new ObjectMetadata(Map.of(ObjectMetadata.COMMIT_ID, "c".repeat(2048 - 18 + 1)));
      assertThat(over.byteSize()).isEqualTo(2049);

      assertThatThrownBy(() -> datastore.write(KEY, body("x"), WriteCondition.mustNotExist(), over))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot write s3://" + bucket.name() + "/" + KEY + ": its metadata holds 2049 bytes of names"
              + " and values, more than the 2048 S3 accepts; nothing was sent");

      assertThat(requests).hasValue(0);
      assertThat(rawKeys(bucket)).isEmpty();
    }
  }

  @Test
  void read_overTheBound_isRefusedByContentLengthWithoutReadingTheBodyOrRetrying(S3TestBucket bucket) {
    byte[] large = new byte[1024 * 1024];
    new Random(3).nextBytes(large);
    AtomicInteger requests = new AtomicInteger();
    AtomicLong bodyBytesRead = new AtomicLong();
    try (S3Client client = S3TestServer.newClient(bucket.server().endpoint(),
        List.of(countRequests(requests), countBodyBytes(bodyBytesRead)))) {
      S3Datastore datastore = bucket.datastore("tier", client, b -> b);
      datastore.write(KEY, ObjectBody.of(large), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      requests.set(0);

      assertThatThrownBy(() -> datastore.read(KEY, ReadCondition.always(), 1024))
          .isInstanceOf(ObjectTooLargeException.class)
          .hasMessage("Cannot read s3://" + bucket.name() + "/tier/" + KEY + ": it has " + large.length
              + " bytes, more than the 1024 this read accepts; nothing was changed")
          .satisfies(e -> assertThat(((ObjectTooLargeException) e).size()).isEqualTo(large.length));

      assertThat(requests).as("GetObject requests").hasValue(1);
      assertThat(bodyBytesRead).as("bytes of the body read").hasValue(0);

      ReadResult whole = datastore.read(KEY, ReadCondition.always(), large.length);
      assertThat(((ReadResult.Found) whole).bytes()).isEqualTo(large);
      assertThat(bodyBytesRead).hasValue(large.length);
    }
  }

  private static S3Client awsClient(Region region, @Nullable URI endpoint) {
    S3ClientBuilder builder = S3Client.builder()
        .region(region)
        .credentialsProvider(AnonymousCredentialsProvider.create())
        .httpClientBuilder(Apache5HttpClient.builder());
    if (endpoint != null) {
      builder.endpointOverride(endpoint);
    }
    return builder.build();
  }

  private static ExecutionInterceptor countRequests(AtomicInteger requests) {
    return new ExecutionInterceptor() {
      @Override
      public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        requests.incrementAndGet();
      }
    };
  }

  /** Counts the bytes of response bodies the SDK hands on, as they are read. */
  private static ExecutionInterceptor countBodyBytes(AtomicLong read) {
    return new ExecutionInterceptor() {
      @Override
      public Optional<InputStream> modifyHttpResponseContent(
          Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
        return context.responseBody().map(in -> new FilterInputStream(in) {
          @Override
          public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
              read.incrementAndGet();
            }
            return b;
          }

          @Override
          public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
              read.addAndGet(n);
            }
            return n;
          }
        });
      }
    };
  }
}
