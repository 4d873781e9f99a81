package dev.tierlock.datastore.s3;

import static dev.tierlock.datastore.s3.S3DatastoreTest.body;
import static dev.tierlock.datastore.s3.S3DatastoreTest.rawKeys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreProvider;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code s3://} provider, found through {@link ServiceLoader}, against the test server.
 * Credentials come from the SDK's default chain, here its system-property step.
 */
@ExtendWith(S3ServerExtension.class)
class S3DatastoreProviderTest {

  private static @Nullable String savedAccessKey;
  private static @Nullable String savedSecretKey;

  @BeforeAll
  static void credentials() {
    savedAccessKey = System.getProperty("aws.accessKeyId");
    savedSecretKey = System.getProperty("aws.secretAccessKey");
    System.setProperty("aws.accessKeyId", S3TestServer.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", S3TestServer.SECRET_KEY);
  }

  @AfterAll
  static void restoreCredentials() {
    restore("aws.accessKeyId", savedAccessKey);
    restore("aws.secretAccessKey", savedSecretKey);
  }

  @Test
  void serviceLoader_findsTheS3Provider() {
    List<DatastoreProvider> providers = ServiceLoader.load(DatastoreProvider.class).stream()
        .map(ServiceLoader.Provider::get)
        .filter(p -> p.scheme().equals("s3"))
        .toList();

    assertThat(providers).hasSize(1).first().isInstanceOf(S3DatastoreProvider.class);
  }

  @Test
  void open_aFullUri_givesAWorkingDatastoreThatOwnsItsClient(S3TestBucket bucket) {
    URI uri = URI.create("s3://" + bucket.name() + "/team/tier?region=us-east-1&endpoint="
        + bucket.server().endpoint() + "&pathStyle=true&apiCallTimeout=PT30S&apiCallAttemptTimeout=PT10S");
    ObjectKey key = ObjectKey.of("config/upstream_extensions.json");

    Datastore datastore = new S3DatastoreProvider().open(uri);

    assertThat(datastore).isInstanceOfSatisfying(S3Datastore.class, s3 -> {
      assertThat(s3.config()).isEqualTo(S3DatastoreConfig.builder(bucket.name()).prefix("team/tier/")
          .apiCallTimeout(Duration.ofSeconds(30)).apiCallAttemptTimeout(Duration.ofSeconds(10)).build());
      assertThat(s3.describe()).isEqualTo("s3://" + bucket.name() + "/team/tier/?endpoint=" + bucket.server().endpoint());
    });
    datastore.write(key, body("{}"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
    assertThat(datastore.read(key, ReadCondition.always(), Lockfile.MAX_BYTES)).isInstanceOf(ReadResult.Found.class);
    assertThat(rawKeys(bucket)).containsExactly("team/tier/config/upstream_extensions.json");

    datastore.close();

    assertThatThrownBy(() -> datastore.read(key, ReadCondition.always(), Lockfile.MAX_BYTES))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot read s3://" + bucket.name() + "/team/tier/config/upstream_extensions.json: the datastore is closed");
  }

  @ParameterizedTest
  @CsvSource(value = {
      "gs://bucket/p| Cannot open gs://bucket/p: the URI is not of the form s3://bucket/prefix",
      "s3:bucket| Cannot open s3:bucket: the URI is not of the form s3://bucket/prefix",
      "s3:///prefix| Cannot open s3:///prefix: the URI names no bucket",
      "s3://user@bucket/p| Cannot open s3://user@bucket/p: the bucket part holds user information or a port",
      "s3://bucket:9000/p| Cannot open s3://bucket:9000/p: the bucket part holds user information or a port",
      "s3://bucket/p#frag| Cannot open s3://bucket/p#frag: the URI has a fragment",
      "s3://Bad_Bucket/p| Cannot open s3://Bad_Bucket/p: Cannot use bucket name \"Bad_Bucket\": a bucket name holds only lowercase letters, digits, '.' and '-', and starts and ends with a letter or digit",
      "s3://bucket/a/../b| Cannot open s3://bucket/a/../b: Cannot use key prefix \"/a/../b\": a prefix has no '.' or '..' segment",
      "s3://bucket/p?colour=red| Cannot open s3://bucket/p: unknown parameter \"colour\" (known: apiCallAttemptTimeout, apiCallTimeout, endpoint, pathStyle, region)",
      "s3://bucket/p?region=us-east-1&region=eu-west-1| Cannot open s3://bucket/p: parameter \"region\" is given twice",
      "s3://bucket/p?pathStyle| Cannot open s3://bucket/p: parameter \"pathStyle\" is not of the form name=value",
      "s3://bucket/p?pathStyle=yes| Cannot open s3://bucket/p: pathStyle is true or false, not \"yes\"",
      "s3://bucket/p?region=us-east-1&endpoint=ftp://host| Cannot open s3://bucket/p: endpoint \"ftp://host\" is not an http or https URI with a host",
      "s3://bucket/p?region=us-east-1&endpoint=http://u:pw@host| Cannot open s3://bucket/p: endpoint holds user information; credentials come from the SDK's provider chain",
      "s3://bucket/p?region=US%20EAST| Cannot open s3://bucket/p: region \"US EAST\" is not a region name",
      "s3://bucket/p?apiCallTimeout=30s| Cannot open s3://bucket/p: apiCallTimeout \"30s\" is not an ISO-8601 duration such as PT30S",
      "s3://bucket/p?apiCallTimeout=PT1S&apiCallAttemptTimeout=PT2S| Cannot open s3://bucket/p: Cannot use apiCallAttemptTimeout PT2S: it is longer than apiCallTimeout PT1S"
  }, delimiter = '|')
  void open_aBadUri_isRefusedWithWhatIsWrong(String uri, String message) {
    assertThatThrownBy(() -> new S3DatastoreProvider().open(URI.create(uri)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message.strip());
  }

  private static void restore(String name, @Nullable String value) {
    if (value == null) {
      System.clearProperty(name);
    } else {
      System.setProperty(name, value);
    }
  }
}
