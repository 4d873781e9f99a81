package dev.tierlock.datastore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.WriteCondition;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.SystemPropertyCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * Without credentials, every call is refused at once as {@code access_denied} with one line that
 * says what to set, instead of the provider chain's long account of every provider it tried (over
 * 1,500 characters on a typical machine); nothing is sent, so a write is known not to have landed.
 */
@ExtendWith(S3ServerExtension.class)
class S3MissingCredentialsTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  @Test
  void everyCall_withoutCredentials_isAccessDenied_inOneLineSayingWhatToSet(S3TestBucket bucket) {
    // the SDK's own chain, here of one provider that finds nothing: it fails the way the default chain does
    try (S3Client client = S3Client.builder().endpointOverride(bucket.server().endpoint()).region(Region.US_EAST_1)
        .credentialsProvider(AwsCredentialsProviderChain.of(SystemPropertyCredentialsProvider.create()))
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build()).build();
        S3Datastore store = bucket.datastore("tier", client, UnaryOperator.identity())) {
      for (Throwable thrown : List.of(
          catchThrowable(() -> store.read(KEY, ReadCondition.always(), 1024)),
          catchThrowable(() -> store.stat(KEY)),
          catchThrowable(() -> store.write(KEY, ObjectBody.of(new byte[] {'{', '}'}), WriteCondition.mustNotExist(),
              ObjectMetadata.EMPTY)))) {
        assertThat(thrown).isInstanceOf(DatastoreAccessDeniedException.class).hasNoCause()
            .hasMessageContaining(": no AWS credentials were found; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,"
                + " or AWS_PROFILE");
        assertThat(thrown.getMessage()).doesNotContain("\n").hasSizeLessThan(400);
      }
    }
  }
}
