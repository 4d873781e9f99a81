package dev.tierlock.datastore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectBodyUnreadableException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.TierlockException;
import dev.tierlock.datastore.s3.S3ExceptionTranslator.ChangeOutcome;
import dev.tierlock.datastore.s3.S3ExceptionTranslator.ReadOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Every answer the SDK can surface, built with the SDK's own exception builders, translated for a
 * read and for a change (write or delete), on a first and on a retried attempt.
 */
class S3ExceptionTranslatorTest {

  private static final String TARGET = "s3://bucket/tier/config/upstream_extensions.json";

  @Test
  void read_304_isNotModified() {
    assertThat(S3ExceptionTranslator.translateRead(status(304, null), "read", TARGET)).isEqualTo(ReadOutcome.NOT_MODIFIED);
  }

  @Test
  void read_404_isAbsent_withOrWithoutAnErrorCode() {
    SdkException noSuchKey = NoSuchKeyException.builder().statusCode(404)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode("NoSuchKey").build()).build();

    assertThat(S3ExceptionTranslator.translateRead(noSuchKey, "read", TARGET)).isEqualTo(ReadOutcome.ABSENT);
    assertThat(S3ExceptionTranslator.translateRead(status(404, null), "stat", TARGET)).isEqualTo(ReadOutcome.ABSENT);
  }

  @Test
  void read_404NoSuchBucket_isUnavailableNotAbsent() {
    assertThatThrownBy(() -> S3ExceptionTranslator.translateRead(status(404, "NoSuchBucket"), "read", TARGET))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot read " + TARGET + ": the bucket does not exist (HTTP 404 NoSuchBucket)")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
  }

  @Test
  void read_403_isAccessDenied() {
    assertThatThrownBy(() -> S3ExceptionTranslator.translateRead(status(403, "AccessDenied"), "list", TARGET))
        .isInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessage("Cannot list " + TARGET + ": access denied (HTTP 403 AccessDenied)")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreAccessDeniedException.CODE));
  }

  @ParameterizedTest
  @CsvSource({
      "409, ConditionalRequestConflict, HTTP 409 ConditionalRequestConflict",
      "412, PreconditionFailed, HTTP 412 PreconditionFailed",
      "429, TooManyRequests, HTTP 429 TooManyRequests (throttled)",
      "500, InternalError, HTTP 500 InternalError",
      "503, SlowDown, HTTP 503 SlowDown (throttled)",
      "400, InvalidRequest, HTTP 400 InvalidRequest"
  })
  void read_otherStatus_isUnavailable(int status, String code, String answer) {
    SdkException failure = status(status, code);

    assertThatThrownBy(() -> S3ExceptionTranslator.translateRead(failure, "read", TARGET))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot read " + TARGET + ": " + answer)
        .hasCause(failure)
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
  }

  @Test
  void read_timeoutsAndIoErrors_areUnavailable() {
    assertThatThrownBy(() -> S3ExceptionTranslator.translateRead(ApiCallTimeoutException.create(300), "read", TARGET))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot read " + TARGET + ": no answer within the call deadline")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
    assertThatThrownBy(() -> S3ExceptionTranslator.translateRead(ApiCallAttemptTimeoutException.create(300), "read", TARGET))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot read " + TARGET + ": no answer within the attempt deadline")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
    SdkException reset = io(new SocketException("Connection reset"));
    assertThatThrownBy(() -> S3ExceptionTranslator.translateRead(reset, "read", TARGET))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot read " + TARGET + ": I/O error (java.net.SocketException: Connection reset)")
        .hasCause(reset)
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
  }

  @ParameterizedTest
  @CsvSource({"412, PreconditionFailed", "409, ConditionalRequestConflict"})
  void change_preconditionAnswersOnTheOnlyAttempt_arePreconditionFailed(int status, String code) {
    assertThat(S3ExceptionTranslator.translateChange(status(status, code), "write", TARGET, 1))
        .isEqualTo(ChangeOutcome.PRECONDITION_FAILED);
  }

  @Test
  void change_404OnTheOnlyAttempt_isAbsent() {
    assertThat(S3ExceptionTranslator.translateChange(status(404, "NoSuchKey"), "write", TARGET, 1))
        .isEqualTo(ChangeOutcome.ABSENT);
  }

  @ParameterizedTest
  @CsvSource({
      "412, PreconditionFailed", "409, ConditionalRequestConflict", "404, NoSuchKey", "403, AccessDenied",
      "503, SlowDown", "429, TooManyRequests", "500, InternalError"
  })
  void change_anyAnswerAfterARetriedAttempt_isOutcomeUnknown(int status, String code) {
    SdkException failure = status(status, code);

    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(failure, "write", TARGET, 2))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot write " + TARGET + ": HTTP " + status + " " + code
            + " on retried attempt 2; an earlier attempt may have landed")
        .hasCause(failure)
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));
  }

  @ParameterizedTest
  @CsvSource({
      "429, TooManyRequests, HTTP 429 TooManyRequests (throttled)",
      "503, SlowDown, HTTP 503 SlowDown (throttled)",
      "501, NotImplemented, HTTP 501 NotImplemented (refused)",
      "409, OperationAborted, HTTP 409 OperationAborted (refused)",
      "400, InvalidArgument, HTTP 400 InvalidArgument (refused)"
  })
  void change_refusalOnTheOnlyAttempt_isUnavailableAndChangedNothing(int status, String code, String answer) {
    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(status(status, code), "delete", TARGET, 1))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot delete " + TARGET + ": " + answer + "; nothing changed")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
  }

  @Test
  void change_403OnTheOnlyAttempt_isAccessDenied() {
    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(status(403, "AccessDenied"), "write", TARGET, 1))
        .isInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessage("Cannot write " + TARGET + ": access denied (HTTP 403 AccessDenied)")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreAccessDeniedException.CODE));
  }

  @ParameterizedTest
  @CsvSource({"500, InternalError", "502, BadGateway", "504, GatewayTimeout"})
  void change_serverErrorThatMayFollowTheChange_isOutcomeUnknown(int status, String code) {
    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(status(status, code), "write", TARGET, 1))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot write " + TARGET + ": HTTP " + status + " " + code
            + " after the request was sent; the write may have landed");
  }

  @Test
  void change_timeoutsAfterSending_areOutcomeUnknown() {
    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(ApiCallAttemptTimeoutException.create(300), "write", TARGET, 1))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot write " + TARGET + ": no answer within the attempt deadline after the request was sent; "
            + "the write may have landed")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));
    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(ApiCallTimeoutException.create(300), "delete", TARGET, 1))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot delete " + TARGET + ": no answer within the call deadline after the request was sent; "
            + "the delete may have landed")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));
  }

  @Test
  void change_ioErrorAfterSending_isOutcomeUnknown() {
    SdkException timedOut = io(new SocketTimeoutException("Read timed out"));

    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(timedOut, "write", TARGET, 1))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot write " + TARGET + ": I/O error (java.net.SocketTimeoutException: Read timed out) "
            + "after the request was sent; the write may have landed")
        .hasCause(timedOut)
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));
  }

  @Test
  void change_refusedConnection_isUnavailableOnTheOnlyAttemptAndUnknownAfterARetry() {
    SdkException refused = io(new ConnectException("Connection refused"));

    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(refused, "write", TARGET, 1))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot write " + TARGET + ": I/O error (java.net.ConnectException: Connection refused) "
            + "(no connection was made); nothing changed")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(refused, "write", TARGET, 2))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageEndingWith("after the request was sent; the write may have landed")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));
  }

  @Test
  void change_failureBeforeAnyAttemptWasSent_isUnavailable() {
    SdkException unsigned = SdkClientException.create("Unable to marshall request to JSON");

    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(unsigned, "write", TARGET, 0))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot write " + TARGET + ": client error (Unable to marshall request to JSON) "
            + "before the request was sent; nothing changed")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
  }

  @Test
  void missingCredentials_isAccessDenied_inOneLine_forReadsAndChanges() {
    SdkException noCredentials = SdkClientException.create("Unable to load credentials from any of the providers in"
        + " the chain AwsCredentialsProviderChain(credentialsProviders=[...]) : [SystemPropertyCredentialsProvider():"
        + " Unable to load credentials from system settings. ...]");

    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(noCredentials, "write", TARGET, 0))
        .isInstanceOf(dev.tierlock.spi.DatastoreAccessDeniedException.class).hasNoCause()
        .hasMessage("Cannot write " + TARGET + ": no AWS credentials were found; set AWS_ACCESS_KEY_ID and"
            + " AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with ~/.aws/credentials, or run where an instance or task role"
            + " provides them; nothing was sent");
    assertThatThrownBy(() -> S3ExceptionTranslator.translateRead(noCredentials, "read", TARGET))
        .isInstanceOf(dev.tierlock.spi.DatastoreAccessDeniedException.class).hasNoCause();
  }

  @Test
  void change_unreadableBody_isItsOwnFailureAndChangedNothing() {
    SdkException failure = SdkClientException.create("Unable to execute HTTP request",
        new UncheckedIOException(new BodyReadException(new IOException("disk gone"))));

    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(failure, "write", TARGET, 1))
        .isExactlyInstanceOf(ObjectBodyUnreadableException.class)
        .hasMessage("Cannot write " + TARGET + ": the body to upload could not be read "
            + "(java.io.IOException: disk gone); nothing changed")
        .satisfies(e -> assertThat(((TierlockException) e).code())
            .isEqualTo(ObjectBodyUnreadableException.CODE).isEqualTo("object_body_unreadable"));
  }

  @Test
  void interruptedCall_keepsTheThreadInterrupted() {
    try {
      assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(AbortedException.create("Thread was interrupted"), "write", TARGET, 1))
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessage("Cannot write " + TARGET + ": the call was interrupted after the request was sent; "
              + "the write may have landed")
          .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  private static SdkException status(int status, @Nullable String code) {
    AwsErrorDetails.Builder details = AwsErrorDetails.builder().serviceName("S3");
    if (code != null) {
      details.errorCode(code).errorMessage("message of " + code);
    }
    return (SdkException) S3Exception.builder().statusCode(status).awsErrorDetails(details.build()).build();
  }

  private static SdkException io(IOException cause) {
    return SdkClientException.create("Unable to execute HTTP request: " + cause.getMessage(), cause);
  }
}
