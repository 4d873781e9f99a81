package dev.tierlock.datastore.s3;

import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.datastore.s3.S3ExceptionTranslator.ChangeOutcome;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.UncheckedIOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * The change path of an {@link S3Datastore}: PutObject and DeleteObject under a precondition, each
 * call carrying the datastore's deadlines, its retry rule and a count of the attempts sent, so that
 * a failure is judged by whether an earlier attempt may have landed. Thread-safe.
 */
final class S3Changes {

  private static final String CONTENT_TYPE = "application/octet-stream";

  private final S3Client client;
  private final S3DatastoreConfig config;
  private final AwsRequestOverrideConfiguration deadlines;

  S3Changes(S3Client client, S3DatastoreConfig config, AwsRequestOverrideConfiguration deadlines) {
    this.client = client;
    this.config = config;
    this.deadlines = deadlines;
  }

  /** Puts {@code body} at {@code s3Key} under {@code condition}; {@code target} names it in messages. */
  WriteResult put(String s3Key, String target, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    PutObjectRequest.Builder request = PutObjectRequest.builder()
        .bucket(config.bucket())
        .key(s3Key)
        .contentLength(body.size())
        .contentType(CONTENT_TYPE)
        .metadata(metadata.values());
    if (condition instanceof WriteCondition.MustNotExist) {
      request.ifNoneMatch("*");
    } else if (condition instanceof WriteCondition.MustMatch mustMatch) {
      request.ifMatch(mustMatch.version().value());
    }
    AtomicInteger attempts = new AtomicInteger();
    request.overrideConfiguration(override(condition, attempts));
    PutObjectResponse response;
    try {
      response = client.putObject(
          request.build(), RequestBody.fromContentProvider(new UploadBody(body), body.size(), CONTENT_TYPE));
    } catch (UncheckedIOException e) {
      // only UploadBody throws it, when the caller's body cannot be opened
      throw S3ExceptionTranslator.unreadableBody(e, "write", target);
    } catch (SdkException | CancellationException | CompletionException e) {
      ChangeOutcome outcome = S3ExceptionTranslator.translateChange(e, "write", target, attempts.get());
      if (condition instanceof WriteCondition.MustMatch
          || (condition instanceof WriteCondition.MustNotExist && outcome == ChangeOutcome.PRECONDITION_FAILED)) {
        return WriteResult.PreconditionFailed.INSTANCE;
      }
      throw new DatastoreUnavailableException("Cannot write " + target + ": the store answered " + outcome
          + " to a write " + (condition instanceof WriteCondition.None ? "without condition" : "that must create")
          + "; nothing changed", e);
    }
    if (response.eTag() == null || response.eTag().isBlank()) {
      throw new OutcomeUnknownException("Cannot write " + target + ": the write landed but the answer has no ETag", null);
    }
    return new WriteResult.Written(ObjectVersion.of(response.eTag()));
  }

  /**
   * Deletes {@code s3Key}, with {@code If-Match} for {@link WriteCondition#mustMatch}; reports
   * {@link DeleteResult#DELETED} on 204 (S3 answers 204 for a missing key too when unconditional).
   */
  DeleteResult delete(String s3Key, String target, WriteCondition condition) {
    DeleteObjectRequest.Builder request = DeleteObjectRequest.builder().bucket(config.bucket()).key(s3Key);
    if (condition instanceof WriteCondition.MustMatch mustMatch) {
      request.ifMatch(mustMatch.version().value());
    }
    AtomicInteger attempts = new AtomicInteger();
    request.overrideConfiguration(override(condition, attempts));
    try {
      client.deleteObject(request.build());
      return DeleteResult.DELETED;
    } catch (SdkException | CancellationException | CompletionException e) {
      return switch (S3ExceptionTranslator.translateChange(e, "delete", target, attempts.get())) {
        case ABSENT -> DeleteResult.ABSENT;
        case PRECONDITION_FAILED -> {
          if (condition instanceof WriteCondition.MustMatch) {
            yield DeleteResult.PRECONDITION_FAILED;
          }
          throw new DatastoreUnavailableException(
              "Cannot delete " + target + ": the store answered a precondition failure to an unconditional delete", e);
        }
      };
    }
  }

  private AwsRequestOverrideConfiguration override(WriteCondition condition, AtomicInteger attempts) {
    SdkPlugin plugin = condition instanceof WriteCondition.None
        ? AttemptCounter.countOnly()
        : AttemptCounter.plugin(config.conditionalWriteRetries());
    return deadlines.toBuilder()
        .putExecutionAttribute(AttemptCounter.ATTEMPTS, attempts)
        .addPlugin(plugin)
        .build();
  }
}
