package dev.tierlock.datastore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class S3DatastoreConfigTest {

  @Test
  void of_usesEveryDefault() {
    S3DatastoreConfig config = S3DatastoreConfig.of("my-bucket", "");

    assertThat(config).isEqualTo(new S3DatastoreConfig("my-bucket", "", Duration.ofSeconds(60), Duration.ofSeconds(20),
        ConditionalWriteRetries.CALLER, 1000));
  }

  @ParameterizedTest
  @CsvSource(value = {
      "'', ''", "/, ''", "team, team/", "team/, team/", "/team, team/", "/team/tier/, team/tier/", "a/b/c, a/b/c/",
      "@scope/name, @scope/name/"
  })
  void prefix_isNormalisedToEndWithExactlyOneSlash(String given, String normalised) {
    assertThat(S3DatastoreConfig.of("my-bucket", given).prefix()).isEqualTo(normalised);
  }

  @ParameterizedTest
  @CsvSource(value = {
      "//, a prefix has no empty segment",
      "a//b, a prefix has no empty segment",
      "a//, a prefix has no empty segment",
      "//a, a prefix has no empty segment",
      "a/../b, a prefix has no '.' or '..' segment",
      "../a, a prefix has no '.' or '..' segment",
      "a/./b, a prefix has no '.' or '..' segment",
      "a\\b, a prefix holds no backslash"
  })
  void prefix_withABadSegment_isRefusedWithTheRule(String prefix, String rule) {
    assertThatThrownBy(() -> S3DatastoreConfig.of("my-bucket", prefix))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use key prefix \"" + prefix + "\": " + rule);
  }

  @Test
  void prefix_withAControlCharacterOrTooLong_isRefused() {
    assertThatThrownBy(() -> S3DatastoreConfig.of("my-bucket", "a\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use key prefix \"a\\u000ab\": a prefix holds no control character");
    assertThatThrownBy(() -> S3DatastoreConfig.of("my-bucket", "p".repeat(1023)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("\": a prefix is shorter than 1024 bytes");
  }

  @ParameterizedTest
  @ValueSource(strings = {"abc", "my-bucket", "my.bucket.name", "0123", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
  void bucket_followingTheRules_isAccepted(String bucket) {
    assertThat(S3DatastoreConfig.of(bucket, "").bucket()).isEqualTo(bucket);
  }

  @ParameterizedTest
  @CsvSource(value = {
      "ab| a bucket name is 3 to 63 characters long",
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa| a bucket name is 3 to 63 characters long",
      "My-Bucket| a bucket name holds only lowercase letters, digits, '.' and '-', and starts and ends with a letter or digit",
      "my_bucket| a bucket name holds only lowercase letters, digits, '.' and '-', and starts and ends with a letter or digit",
      "-bucket| a bucket name holds only lowercase letters, digits, '.' and '-', and starts and ends with a letter or digit",
      "bucket.| a bucket name holds only lowercase letters, digits, '.' and '-', and starts and ends with a letter or digit",
      "my..bucket| a bucket name has no two adjacent periods",
      "192.168.5.4| a bucket name is not formatted as an IP address",
      "xn--bucket| a bucket name does not start with the reserved \"xn--\"",
      "sthree-bucket| a bucket name does not start with the reserved \"sthree-\"",
      "bucket-s3alias| a bucket name does not end with the reserved \"-s3alias\"",
      "bucket--ol-s3| a bucket name does not end with the reserved \"--ol-s3\""
  }, delimiter = '|')
  void bucket_breakingARule_isRefusedWithTheRule(String bucket, String rule) {
    assertThatThrownBy(() -> S3DatastoreConfig.of(bucket, ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use bucket name \"" + bucket + "\": " + rule.strip());
  }

  @Test
  void deadlines_mustBePositiveAndTheAttemptNoLongerThanTheCall() {
    assertThatThrownBy(() -> S3DatastoreConfig.builder("my-bucket").apiCallTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use apiCallTimeout PT0S: a deadline is positive");
    assertThatThrownBy(() -> S3DatastoreConfig.builder("my-bucket").apiCallAttemptTimeout(Duration.ofSeconds(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use apiCallAttemptTimeout PT-1S: a deadline is positive");
    assertThatThrownBy(() -> S3DatastoreConfig.builder("my-bucket")
            .apiCallTimeout(Duration.ofSeconds(5)).apiCallAttemptTimeout(Duration.ofSeconds(6)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use apiCallAttemptTimeout PT6S: it is longer than apiCallTimeout PT5S");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 1001})
  void listPageSize_outOfRange_isRefused(int size) {
    assertThatThrownBy(() -> S3DatastoreConfig.builder("my-bucket").listPageSize(size).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use listPageSize " + size + ": it is between 1 and 1000");
  }

  @Test
  void toBuilder_keepsEveryValue() {
    S3DatastoreConfig config = S3DatastoreConfig.builder("my-bucket").prefix("p").apiCallTimeout(Duration.ofSeconds(9))
        .apiCallAttemptTimeout(Duration.ofSeconds(3)).conditionalWriteRetries(ConditionalWriteRetries.SDK).listPageSize(7)
        .build();

    assertThat(config.toBuilder().build()).isEqualTo(config);
  }
}
