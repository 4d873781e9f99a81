package dev.tierlock.datastore.s3;

import static dev.tierlock.datastore.s3.S3DatastoreTest.body;
import static dev.tierlock.datastore.s3.S3DatastoreTest.rawKeys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A conditional write whose answer is lost is never reported as "precondition failed, nothing
 * changed". The answer is lost for real: a TCP proxy forwards the request to the S3 server, which
 * applies it, and cuts the connection instead of forwarding the answer.
 */
@ExtendWith(S3ServerExtension.class)
class S3RetryHonestyTest {

  private static final ObjectKey KEY = ObjectKey.of(".datastore.lock");
  private static final ObjectMetadata OURS = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "ours");

  private final AtomicInteger transmissions = new AtomicInteger();
  private final FaultProxy proxy;
  private final S3Client client;

  S3RetryHonestyTest() throws Exception {
    proxy = FaultProxy.start(S3TestServer.instance().endpoint());
    client = S3TestServer.newClient(proxy.endpoint(), List.of(countTransmissions(transmissions)));
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    proxy.close();
  }

  @Test
  void createOnly_lostAnswerWithOneAttempt_isOutcomeUnknownAndTheWriteLanded(S3TestBucket bucket) {
    S3Datastore datastore = datastore(bucket, ConditionalWriteRetries.CALLER);
    proxy.failNextResponse(FaultProxy.Fault.DROP);

    assertThatThrownBy(() -> datastore.write(KEY, body("lock"), WriteCondition.mustNotExist(), OURS))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageStartingWith("Cannot write s3://" + bucket.name() + "/.datastore.lock: I/O error (")
        .hasMessageEndingWith("after the request was sent; the write may have landed")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE);

    assertThat(proxy.lostResponses()).isEqualTo(1);
    assertThat(transmissions).hasValue(1);
    assertThat(commitIdOf(bucket, KEY)).isEqualTo("ours");
  }

  @Test
  void createOnly_lostAnswerRetriedBySdk_reportsTheRetried412AsOutcomeUnknown(S3TestBucket bucket) {
    S3Datastore datastore = datastore(bucket, ConditionalWriteRetries.SDK);
    proxy.failNextResponse(FaultProxy.Fault.DROP);

    assertThatThrownBy(() -> datastore.write(KEY, body("lock"), WriteCondition.mustNotExist(), OURS))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot write s3://" + bucket.name() + "/.datastore.lock: HTTP 412 PreconditionFailed "
            + "on retried attempt 2; an earlier attempt may have landed")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE);

    assertThat(transmissions).hasValue(2);
    assertThat(commitIdOf(bucket, KEY)).isEqualTo("ours");
  }

  @Test
  void compareAndSwap_lostAnswer_isOutcomeUnknownWithEitherRetryRule(S3TestBucket bucket) {
    for (ConditionalWriteRetries retries : ConditionalWriteRetries.values()) {
      S3Datastore datastore = datastore(bucket, retries);
      WriteResult.Written base =
          (WriteResult.Written) datastore.write(KEY, body("old " + retries), WriteCondition.none(), ObjectMetadata.EMPTY);
      transmissions.set(0);
      proxy.failNextResponse(FaultProxy.Fault.DROP);

      assertThatThrownBy(() -> datastore.write(KEY, body("new " + retries), WriteCondition.mustMatch(base.version()), OURS))
          .as("retries %s", retries)
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageStartingWith("Cannot write s3://" + bucket.name() + "/.datastore.lock: ")
          .hasMessageContaining("may have landed")
          .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));

      assertThat(transmissions).as("retries %s", retries).hasValue(retries == ConditionalWriteRetries.CALLER ? 1 : 2);
      assertThat(bytesOf(datastore)).isEqualTo("new " + retries);
    }
  }

  @Test
  void conditionalDelete_lostAnswer_isOutcomeUnknownWithEitherRetryRule(S3TestBucket bucket) {
    for (ConditionalWriteRetries retries : ConditionalWriteRetries.values()) {
      S3Datastore datastore = datastore(bucket, retries);
      WriteResult.Written held = (WriteResult.Written) datastore.write(KEY, body("held"), WriteCondition.none(), OURS);
      transmissions.set(0);
      proxy.failNextResponse(FaultProxy.Fault.DROP);

      assertThatThrownBy(() -> datastore.delete(KEY, WriteCondition.mustMatch(held.version())))
          .as("retries %s", retries)
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageStartingWith("Cannot delete s3://" + bucket.name() + "/.datastore.lock: ")
          .hasMessageContaining("may have landed")
          .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));

      assertThat(transmissions).as("retries %s", retries).hasValue(retries == ConditionalWriteRetries.CALLER ? 1 : 2);
      assertThat(rawKeys(bucket)).isEmpty();
    }
  }

  @Test
  void createOnly_overAnExistingObjectWithoutFault_isAnHonestPreconditionFailure(S3TestBucket bucket) {
    S3Datastore datastore = datastore(bucket, ConditionalWriteRetries.SDK);
    datastore.write(KEY, body("theirs"), WriteCondition.mustNotExist(), ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "theirs"));
    transmissions.set(0);

    WriteResult result = datastore.write(KEY, body("ours"), WriteCondition.mustNotExist(), OURS);

    assertThat(result).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertThat(transmissions).hasValue(1);
    assertThat(commitIdOf(bucket, KEY)).isEqualTo("theirs");
  }

  @Test
  void unconditionalWrite_lostAnswer_isRetriedByTheClientAndLands(S3TestBucket bucket) {
    S3Datastore datastore = datastore(bucket, ConditionalWriteRetries.CALLER);
    proxy.failNextResponse(FaultProxy.Fault.DROP);

    WriteResult result = datastore.write(KEY, body("plain"), WriteCondition.none(), OURS);

    assertThat(result).isInstanceOf(WriteResult.Written.class);
    assertThat(transmissions).hasValue(2);
    assertThat(bytesOf(datastore)).isEqualTo("plain");
  }

  @Test
  void write_withNoAnswerWithinTheAttemptDeadline_isOutcomeUnknown(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("", client,
        b -> b.apiCallTimeout(Duration.ofMillis(400)).apiCallAttemptTimeout(Duration.ofMillis(300)));
    proxy.failNextResponse(FaultProxy.Fault.STALL);

    assertThatThrownBy(() -> datastore.write(KEY, body("slow"), WriteCondition.mustNotExist(), OURS))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot write s3://" + bucket.name() + "/.datastore.lock: no answer within the attempt deadline "
            + "after the request was sent; the write may have landed")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));
    proxy.release();

    assertThat(commitIdOf(bucket, KEY)).isEqualTo("ours");
  }

  @Test
  void read_withNoAnswerWithinTheDeadline_isUnavailable(S3TestBucket bucket) {
    // no time is left for a retry: the call deadline is the attempt deadline
    S3Datastore datastore = bucket.datastore("", client,
        b -> b.apiCallTimeout(Duration.ofMillis(300)).apiCallAttemptTimeout(Duration.ofMillis(300)));
    proxy.failNextResponse(FaultProxy.Fault.STALL);

    assertThatThrownBy(() -> datastore.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessageStartingWith("Cannot read s3://" + bucket.name() + "/.datastore.lock: no answer within the ")
        .hasMessageEndingWith(" deadline")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
    proxy.release();
  }

  @Test
  void write_throttledBeforeApplying_isUnavailableAndChangesNothing(S3TestBucket bucket) {
    S3Datastore datastore = datastore(bucket, ConditionalWriteRetries.CALLER);
    bucket.failNextWrite(ServerState.Phase.BEFORE_APPLY, 503, "SlowDown");

    assertThatThrownBy(() -> datastore.write(KEY, body("x"), WriteCondition.mustNotExist(), OURS))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot write s3://" + bucket.name() + "/.datastore.lock: HTTP 503 SlowDown (throttled); nothing changed")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE);

    assertThat(rawKeys(bucket)).isEmpty();
  }

  @Test
  void write_answered500AfterApplying_isOutcomeUnknown(S3TestBucket bucket) {
    S3Datastore datastore = datastore(bucket, ConditionalWriteRetries.CALLER);
    bucket.failNextWrite(ServerState.Phase.AFTER_APPLY, 500, "InternalError");

    assertThatThrownBy(() -> datastore.write(KEY, body("x"), WriteCondition.mustNotExist(), OURS))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot write s3://" + bucket.name() + "/.datastore.lock: HTTP 500 InternalError "
            + "after the request was sent; the write may have landed")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));

    assertThat(commitIdOf(bucket, KEY)).isEqualTo("ours");
  }

  @Test
  void write_toAPortWhereNothingListens_isUnavailableAndNothingWasSent(S3TestBucket bucket) throws Exception {
    java.net.URI deadEndpoint;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      deadEndpoint = java.net.URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }
    try (S3Client dead = S3TestServer.newClient(deadEndpoint, List.of())) {
      S3Datastore datastore = bucket.datastore("", dead, b -> b);

      assertThatThrownBy(() -> datastore.write(KEY, body("x"), WriteCondition.mustNotExist(), OURS))
          .isInstanceOf(DatastoreUnavailableException.class)
          .hasMessageStartingWith("Cannot write s3://" + bucket.name() + "/.datastore.lock: I/O error (")
          .hasMessageEndingWith("(no connection was made); nothing changed")
          .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
    }
  }

  private S3Datastore datastore(S3TestBucket bucket, ConditionalWriteRetries retries) {
    return bucket.datastore("", client, b -> b.conditionalWriteRetries(retries));
  }

  private static String commitIdOf(S3TestBucket bucket, ObjectKey key) {
    StoredObject object = bucket.datastore("").stat(key).orElseThrow();
    return object.metadata().get(ObjectMetadata.COMMIT_ID).orElseThrow();
  }

  private static String bytesOf(S3Datastore datastore) {
    ReadResult.Found found = (ReadResult.Found) datastore.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES);
    return new String(found.bytes(), StandardCharsets.UTF_8);
  }

  private static ExecutionInterceptor countTransmissions(AtomicInteger transmissions) {
    return new ExecutionInterceptor() {
      @Override
      public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String method = context.httpRequest().method().name();
        if (method.equals("PUT") || method.equals("DELETE")) {
          transmissions.incrementAndGet();
        }
      }
    };
  }
}
