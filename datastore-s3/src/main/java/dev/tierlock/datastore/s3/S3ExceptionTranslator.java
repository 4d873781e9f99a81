package dev.tierlock.datastore.s3;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectBodyUnreadableException;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.OutcomeUnknownException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Translates what the AWS SDK throws into the datastore SPI: an expected outcome (not modified,
 * absent, precondition failed) or a {@link DatastoreException}. The only place in this module that
 * reads SDK exceptions; no SDK type leaves it.
 *
 * <p>For a change (write or delete) the translation depends on how many attempts of the call were
 * sent: after more than one, no failure can prove that nothing changed, so every failure becomes
 * {@link OutcomeUnknownException}. A 500-class answer other than 501 and 503 may come after the
 * change was applied, and so does a timeout or an I/O error once the request was sent: also outcome
 * unknown. 503 and 429 (throttling) and every other 4xx are refusals: nothing changed. A whole read
 * whose body was over the caller's bound ({@link BoundedBody.TooLarge}, thrown inside the SDK's
 * call) is {@link ObjectTooLargeException}.
 *
 * <p>Besides {@link SdkException}, a call may end with what the SDK and its HTTP client let through
 * unwrapped ({@link #escapes}): a {@link CancellationException} (the HTTP client's connection-lease
 * wait, cancelled when the call deadline passes or the thread is interrupted), or a {@link
 * CompletionException} around any failure. They are translated like a client-side failure: the
 * cause of a {@code CompletionException} first; a {@code CancellationException} as a call that got
 * no answer. An {@link InterruptedException} anywhere in the chain, or an {@link AbortedException},
 * restores the thread's interrupt flag.
 */
final class S3ExceptionTranslator {

  /** The expected outcomes a failed read stands for. */
  enum ReadOutcome {
    /** 304: the object still has the version the read was conditional on; no body came. */
    NOT_MODIFIED,
    /** 404: no object at the key. */
    ABSENT
  }

  /** The expected outcomes a failed write or delete stands for; each means that nothing changed. */
  enum ChangeOutcome {
    /** 404: no object at the key. */
    ABSENT,
    /** 412, or 409 ConditionalRequestConflict: the precondition did not hold. */
    PRECONDITION_FAILED
  }

  private S3ExceptionTranslator() {}

  /**
   * Returns whether {@code failure} is one this translator takes: an {@link SdkException}, or a
   * {@link CancellationException} or {@link CompletionException} the SDK let through.
   *
   * @param failure what a call threw
   * @return whether to hand it to {@link #translateRead} or {@link #translateChange}
   */
  static boolean escapes(RuntimeException failure) {
    return failure instanceof SdkException || failure instanceof CancellationException
        || failure instanceof CompletionException;
  }

  /**
   * Translates the failure of a read, stat or list, which never changes anything.
   *
   * @param thrown what the call threw ({@link #escapes})
   * @param verb the verb for messages ({@code read}, {@code stat}, {@code list})
   * @param target the object or prefix the call was about, as an {@code s3://} URI
   * @return the expected outcome the failure stands for
   * @throws ObjectTooLargeException when the body was over the read's bound
   * @throws DatastoreAccessDeniedException for 403
   * @throws DatastoreUnavailableException for every other failure
   */
  static ReadOutcome translateRead(RuntimeException thrown, String verb, String target) {
    RuntimeException failure = unwrap(thrown);
    restoreInterrupt(failure);
    refuseWithoutCredentials(failure, verb, target);
    BoundedBody.TooLarge oversize = find(failure, BoundedBody.TooLarge.class);
    if (oversize != null) {
      throw tooLarge(oversize, target, failure);
    }
    if (failure instanceof SdkServiceException service) {
      int status = service.statusCode();
      String answer = answer(service);
      refuseBucketAndAccess(service, verb, target, answer);
      return switch (status) {
        case 304 -> ReadOutcome.NOT_MODIFIED;
        case 404 -> ReadOutcome.ABSENT;
        default -> throw new DatastoreUnavailableException(
            "Cannot " + verb + " " + target + ": " + answer + (throttled(status) ? " (throttled)" : ""), failure);
      };
    }
    throw new DatastoreUnavailableException("Cannot " + verb + " " + target + ": " + describeClientFailure(failure), failure);
  }

  /**
   * Translates a body over a read's bound.
   *
   * @param oversize what the bounded body reported
   * @param target the object, as an {@code s3://} URI
   * @param failure what was thrown, kept as the cause
   * @return the exception to throw
   */
  static ObjectTooLargeException tooLarge(BoundedBody.TooLarge oversize, String target, RuntimeException failure) {
    return new ObjectTooLargeException(target, oversize.size(), oversize.limit(), failure);
  }

  /**
   * Translates the failure of a write or delete.
   *
   * @param thrown what the call threw ({@link #escapes})
   * @param verb the verb for messages ({@code write}, {@code delete})
   * @param target the object the call was about, as an {@code s3://} URI
   * @param attempts how many attempts of the call were sent to the server (0 when none was)
   * @return the expected outcome the failure stands for; returned only when nothing changed
   * @throws OutcomeUnknownException when the change may have landed
   * @throws DatastoreAccessDeniedException for 403 on the only attempt
   * @throws DatastoreUnavailableException for other refusals on the only attempt
   * @throws ObjectBodyUnreadableException when the call's own body could not be read (the request
   *     was then cut short and nothing changed)
   */
  static ChangeOutcome translateChange(RuntimeException thrown, String verb, String target, int attempts) {
    RuntimeException failure = unwrap(thrown);
    restoreInterrupt(failure);
    refuseWithoutCredentials(failure, verb, target);
    if (failure instanceof SdkServiceException service) {
      return translateChangeStatus(service, verb, target, attempts);
    }
    BodyReadException body = find(failure, BodyReadException.class);
    if (body != null) {
      throw unreadableBody(body, failure, verb, target);
    }
    String what = describeClientFailure(failure);
    if (attempts == 0) {
      throw new DatastoreUnavailableException(
          "Cannot " + verb + " " + target + ": " + what + " before the request was sent; nothing changed", failure);
    }
    if (attempts == 1 && neverConnected(failure)) {
      throw new DatastoreUnavailableException(
          "Cannot " + verb + " " + target + ": " + what + " (no connection was made); nothing changed", failure);
    }
    throw new OutcomeUnknownException("Cannot " + verb + " " + target + ": " + what
        + " after the request was sent; the " + verb + " may have landed", failure);
  }

  /**
   * Translates the failure to read a change's own body, which the SDK may let escape as the {@link
   * java.io.UncheckedIOException} its body provider threw: the upload was cut short, nothing changed.
   *
   * @return the exception to throw
   */
  static ObjectBodyUnreadableException unreadableBody(java.io.UncheckedIOException failure, String verb, String target) {
    BodyReadException body = find(failure, BodyReadException.class);
    return unreadableBody(body == null ? failure.getCause() : body, failure, verb, target);
  }

  private static ObjectBodyUnreadableException unreadableBody(
      IOException body, RuntimeException failure, String verb, String target) {
    Throwable reason = body instanceof BodyReadException ? body.getCause() : body;
    return new ObjectBodyUnreadableException("Cannot " + verb + " " + target
        + ": the body to upload could not be read (" + reason + "); nothing changed", failure);
  }

  private static ChangeOutcome translateChangeStatus(
      SdkServiceException failure, String verb, String target, int attempts) {
    int status = failure.statusCode();
    String code = errorCode(failure);
    String answer = answer(failure);
    if (attempts > 1) {
      throw new OutcomeUnknownException("Cannot " + verb + " " + target + ": " + answer + " on retried attempt "
          + attempts + "; an earlier attempt may have landed", failure);
    }
    refuseBucketAndAccess(failure, verb, target, answer);
    if (status == 412 || (status == 409 && code.equals("ConditionalRequestConflict"))) {
      return ChangeOutcome.PRECONDITION_FAILED;
    }
    if (status == 404) {
      return ChangeOutcome.ABSENT;
    }
    if (status >= 500 && status != 501 && status != 503) {
      throw new OutcomeUnknownException("Cannot " + verb + " " + target + ": " + answer
          + " after the request was sent; the " + verb + " may have landed", failure);
    }
    throw new DatastoreUnavailableException("Cannot " + verb + " " + target + ": " + answer
        + (throttled(status) ? " (throttled)" : " (refused)") + "; nothing changed", failure);
  }

  private static void refuseBucketAndAccess(SdkServiceException failure, String verb, String target, String answer) {
    if (failure.statusCode() == 404 && errorCode(failure).equals("NoSuchBucket")) {
      throw new DatastoreUnavailableException(
          "Cannot " + verb + " " + target + ": the bucket does not exist (" + answer + ")", failure);
    }
    if (failure.statusCode() == 403) {
      throw new DatastoreAccessDeniedException(
          "Cannot " + verb + " " + target + ": access denied (" + answer + ")", failure);
    }
  }

  /** The failure a {@link CompletionException} stands for: its cause when that is a runtime failure. */
  private static RuntimeException unwrap(RuntimeException failure) {
    RuntimeException current = failure;
    for (int depth = 0; current instanceof CompletionException && depth < 16; depth++) {
      if (!(current.getCause() instanceof RuntimeException cause)) {
        break;
      }
      current = cause;
    }
    return current;
  }

  private static void restoreInterrupt(RuntimeException failure) {
    boolean deadline = failure instanceof ApiCallTimeoutException || failure instanceof ApiCallAttemptTimeoutException;
    if (failure instanceof AbortedException || !deadline && find(failure, InterruptedException.class) != null) {
      Thread.currentThread().interrupt();
    }
  }

  private static String answer(SdkServiceException failure) {
    String code = errorCode(failure);
    return "HTTP " + failure.statusCode() + (code.isEmpty() ? "" : " " + code);
  }

  private static boolean throttled(int status) {
    return status == 429 || status == 503;
  }

  private static String errorCode(SdkServiceException failure) {
    if (failure instanceof AwsServiceException aws && aws.awsErrorDetails() != null) {
      String code = aws.awsErrorDetails().errorCode();
      return code == null ? "" : code;
    }
    return "";
  }

  /**
   * Refuses a call the client could not sign because no credentials provider had credentials: one
   * line that says what to set, instead of the provider chain's long account of each provider it
   * tried. Nothing was sent, so nothing changed.
   *
   * @throws DatastoreAccessDeniedException when that is the failure
   */
  private static void refuseWithoutCredentials(RuntimeException failure, String verb, String target) {
    if (failure instanceof SdkClientException && failure.getMessage() != null
        && failure.getMessage().startsWith("Unable to load credentials")) {
      throw new DatastoreAccessDeniedException("Cannot " + verb + " " + target + ": no AWS credentials were found;"
          + " set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with ~/.aws/credentials, or run where"
          + " an instance or task role provides them; nothing was sent", null);
    }
  }

  private static String describeClientFailure(RuntimeException failure) {
    if (failure instanceof CancellationException) {
      return "the call was cancelled (its deadline passed or it was interrupted) with no answer";
    }
    if (failure instanceof ApiCallAttemptTimeoutException) {
      return "no answer within the attempt deadline";
    }
    if (failure instanceof ApiCallTimeoutException) {
      return "no answer within the call deadline";
    }
    if (failure instanceof AbortedException || find(failure, InterruptedException.class) != null) {
      return "the call was interrupted";
    }
    IOException io = find(failure, IOException.class);
    if (io != null) {
      return "I/O error (" + io + ")";
    }
    return "client error (" + failure.getMessage() + ")";
  }

  private static boolean neverConnected(Throwable failure) {
    return find(failure, ConnectException.class) != null
        || find(failure, UnknownHostException.class) != null
        || find(failure, NoRouteToHostException.class) != null;
  }

  private static <T extends Throwable> @Nullable T find(Throwable failure, Class<T> type) {
    Throwable current = failure;
    for (int depth = 0; current != null && depth < 16; depth++) {
      if (type.isInstance(current)) {
        return type.cast(current);
      }
      current = current.getCause();
    }
    return null;
  }
}
