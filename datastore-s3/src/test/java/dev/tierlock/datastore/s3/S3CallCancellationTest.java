package dev.tierlock.datastore.s3;

import static dev.tierlock.datastore.s3.S3DatastoreTest.body;
import static dev.tierlock.datastore.s3.S3DatastoreTest.rawKeys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.WriteCondition;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * A call whose deadline passes while the HTTP client waits for a connection is an SPI exception,
 * never the {@link CancellationException} the client's connection pool throws. The server stalls
 * for real: a {@link FaultProxy} holds the answer to a first call, which keeps the client's only
 * pooled connection, and the next calls, with a short call deadline, wait for it; whether the SDK
 * or the pool ends that wait is a race, so {@link LeaseCancellingHttpClient} makes the pool's
 * ending (a bare {@code CancellationException}) certain where a test needs it.
 */
@ExtendWith(S3ServerExtension.class)
class S3CallCancellationTest {

  private static final ObjectKey KEY = ObjectKey.of("entries/x.json");

  private final FaultProxy proxy;
  private final LeaseCancellingHttpClient http;
  private final S3Client oneConnection;
  private CompletableFuture<Object> held = CompletableFuture.completedFuture(null);

  S3CallCancellationTest() throws Exception {
    proxy = FaultProxy.start(S3TestServer.instance().endpoint());
    oneConnection = S3Client.builder()
        .endpointOverride(proxy.endpoint())
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(S3TestServer.ACCESS_KEY, S3TestServer.SECRET_KEY)))
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
        .httpClient(http = new LeaseCancellingHttpClient(Apache5HttpClient.builder().maxConnections(1).build()))
        .build();
  }

  @AfterEach
  void stop() throws Exception {
    proxy.release();
    proxy.close();
    oneConnection.close();
    held.handle((r, e) -> r).get(30, TimeUnit.SECONDS);
  }

  /** Starts a read whose answer the proxy holds, and returns once it holds it: the one connection is taken. */
  private void holdTheOnlyConnection(S3TestBucket bucket) {
    S3Datastore patient = bucket.datastore("", oneConnection,
        b -> b.apiCallTimeout(Duration.ofMinutes(1)).apiCallAttemptTimeout(Duration.ofMinutes(1)));
    proxy.failNextResponse(FaultProxy.Fault.STALL);
    held = CompletableFuture.supplyAsync(() -> patient.stat(ObjectKey.of("held")));
    while (proxy.lostResponses() == 0) {
      Thread.onSpinWait();  // the proxy counts the answer as soon as it holds it
    }
  }

  private S3Datastore hasty(S3TestBucket bucket) {
    return bucket.datastore("", oneConnection,
        b -> b.apiCallTimeout(Duration.ofMillis(300)).apiCallAttemptTimeout(Duration.ofMillis(300)));
  }

  @Test
  void write_whoseDeadlinePassesWaitingForAConnection_isOutcomeUnknown_andChangedNothing(S3TestBucket bucket) {
    holdTheOnlyConnection(bucket);
    http.starveNext(1);

    // the SDK counts the attempt before the HTTP client waits for a connection: the translator cannot
    // tell that nothing was sent, and says so honestly
    assertThatThrownBy(() -> hasty(bucket).write(KEY, body("x"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
        .isInstanceOf(OutcomeUnknownException.class)
        .hasMessageStartingWith("Cannot write s3://" + bucket.name() + "/entries/x.json: the call was cancelled (its"
            + " deadline passed or it was interrupted) with no answer after the request was sent; the write may have"
            + " landed")
        .hasRootCauseInstanceOf(CancellationException.class)
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(OutcomeUnknownException.CODE));
    assertThat(Thread.interrupted()).as("a deadline is no interrupt").isFalse();
    assertThat(rawKeys(bucket)).isEmpty();
  }

  @Test
  void readStatListAndDelete_whoseDeadlinePassesWaitingForAConnection_areUnavailable(S3TestBucket bucket) {
    holdTheOnlyConnection(bucket);
    S3Datastore hasty = hasty(bucket);
    http.starveNext(10);
    String target = "s3://" + bucket.name() + "/entries/x.json: the call was cancelled";

    assertThatThrownBy(() -> hasty.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES))
        .isInstanceOf(DatastoreUnavailableException.class).hasMessageStartingWith("Cannot read " + target);
    assertThatThrownBy(() -> hasty.stat(KEY))
        .isInstanceOf(DatastoreUnavailableException.class).hasMessageStartingWith("Cannot stat " + target);
    assertThatThrownBy(() -> hasty.openStream(KEY))
        .isInstanceOf(DatastoreUnavailableException.class).hasMessageStartingWith("Cannot open " + target);
    assertThatThrownBy(() -> hasty.delete(KEY, WriteCondition.none()))
        .isInstanceOf(DatastoreUnavailableException.class).hasMessageContaining("the call was cancelled");
    assertThatThrownBy(() -> hasty.list("entries/"))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessageContaining("the call was cancelled (its deadline passed or it was interrupted)");
  }

  @Test
  void everyCall_whoseDeadlinePassesAgainstAStalledServer_endsInAnSpiException(S3TestBucket bucket) {
    holdTheOnlyConnection(bucket);
    S3Datastore hasty = hasty(bucket);

    for (int round = 0; round < 4; round++) {
      assertThatThrownBy(() -> hasty.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES))
          .isInstanceOf(DatastoreUnavailableException.class).hasMessageStartingWith("Cannot read s3://");
      assertThatThrownBy(() -> hasty.write(KEY, body("x"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
          .isInstanceOf(TierlockException.class).hasMessageStartingWith("Cannot write s3://");
      assertThat(Thread.interrupted()).as("a deadline is no interrupt").isFalse();
    }
  }

  @Test
  void completionAndInterruption_wrappedOrNot_areUnavailable_andKeepTheInterrupt() {
    CompletionException wrapped = new CompletionException(new CancellationException("lease cancelled"));
    assertThatThrownBy(() -> S3ExceptionTranslator.translateRead(wrapped, "read", "s3://b/k"))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot read s3://b/k: the call was cancelled (its deadline passed or it was interrupted) with"
            + " no answer")
        .hasCauseInstanceOf(CancellationException.class);
    assertThat(Thread.interrupted()).isFalse();

    CompletionException interrupted = new CompletionException(new InterruptedException("stop"));
    assertThatThrownBy(() -> S3ExceptionTranslator.translateChange(interrupted, "write", "s3://b/k", 0))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot write s3://b/k: the call was interrupted before the request was sent; nothing changed");
    assertThat(Thread.interrupted()).as("the interrupt is restored (and cleared here)").isTrue();
  }
}
