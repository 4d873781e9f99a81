package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.WriteChannel;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import dev.tierlock.testkit.gcs.GcsOperation;
import dev.tierlock.testkit.gcs.GcsRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Fault injection of the fake server, seen through the real client. */
@ExtendWith(GcsFakeServerExtension.class)
class GcsFakeServerFaultTest {

  private final GcsFakeServer server;
  private final Storage single;

  GcsFakeServerFaultTest(GcsFakeServer server) {
    this.server = server;
    this.single = TestStorage.singleAttempt(server);
  }

  @AfterEach
  void clearFaults() {
    server.faults().clear();
    server.clearRequests();
  }

  @Test
  void failNext_failsExactlyThatManyRequestsWithoutApplyingThem(GcsFakeBucket bucket) {
    server.plant(bucket.name(), "r", bytes("r"));
    server.faults().failNext(2, 503);
    server.clearRequests();

    Storage retrying = TestStorage.retrying(server);
    assertThat(retrying.get(BlobId.of(bucket.name(), "r")).getSize()).isEqualTo(1L);
    assertThat(server.requests()).extracting(GcsRequest::operation)
        .containsExactly(GcsOperation.GET_OBJECT, GcsOperation.GET_OBJECT, GcsOperation.GET_OBJECT);
    assertThat(server.faults().pending()).isZero();
  }

  @Test
  void failNext_byPredicate_failsOnlyMatchingRequests(GcsFakeBucket bucket) {
    server.faults().failNext(r -> r.operation() == GcsOperation.UPLOAD && r.object().equals("target"), 1, 500);

    single.create(BlobInfo.newBuilder(bucket.name(), "other").build(), bytes("o"));
    assertThatThrownBy(() -> single.create(BlobInfo.newBuilder(bucket.name(), "target").build(), bytes("t")))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("injected failure with status 500")
        .satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(500));
    assertThat(server.objectNames(bucket.name())).containsExactly("other");
    single.create(BlobInfo.newBuilder(bucket.name(), "target").build(), bytes("t"));
    assertThat(server.objectNames(bucket.name())).containsExactly("other", "target");
  }

  @Test
  void throttleWrites_answers429RateLimitExceededToWritesOfThatObjectOnly(GcsFakeBucket bucket) {
    server.faults().throttleWrites(bucket.name(), "hot", 2);
    BlobInfo hot = BlobInfo.newBuilder(bucket.name(), "hot").build();

    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> single.create(hot, bytes("h")))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("status 429")
          .satisfies(e -> assertThat(((StorageException) e).getReason()).isEqualTo("rateLimitExceeded"));
      single.create(BlobInfo.newBuilder(bucket.name(), "cold" + i).build(), bytes("c"));
    }
    single.create(hot, bytes("h"));
    assertThat(server.objectNames(bucket.name())).containsExactly("cold0", "cold1", "hot");
  }

  @Test
  void loseNextResponses_appliesTheWriteThenCutsTheConnection(GcsFakeBucket bucket) {
    server.faults().loseNextResponses(GcsRequest::isWrite, 1);

    assertThatThrownBy(() -> single.create(BlobInfo.newBuilder(bucket.name(), "lost").build(), bytes("landed")))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("Unexpected end of file")
        .satisfies(e -> assertThat(((StorageException) e).getCode()).isZero());
    assertThat(server.peek(bucket.name(), "lost")).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("landed")));
  }

  @Test
  void loseNextResponses_onTheLastResumableChunk_isResolvedByTheClientsStatusQuery(GcsFakeBucket bucket)
      throws IOException {
    AtomicInteger uploads = new AtomicInteger();
    server.faults().loseNextResponses(r -> r.operation() == GcsOperation.UPLOAD && uploads.incrementAndGet() == 4, 1);
    server.clearRequests();
    byte[] bytes = new byte[600_000];
    try (WriteChannel writer = TestStorage.retrying(server).writer(BlobInfo.newBuilder(bucket.name(), "resumed").build(),
        Storage.BlobWriteOption.doesNotExist())) {
      writer.setChunkSize(256 * 1024);
      writer.write(ByteBuffer.wrap(bytes));
    }

    assertThat(server.peek(bucket.name(), "resumed")).hasValueSatisfying(b -> assertThat(b).hasSize(600_000));
    // POST, three chunks (the last one's answer lost), then the client's status query finds it committed
    assertThat(server.requests()).filteredOn(r -> r.operation() == GcsOperation.UPLOAD).hasSize(5);
    assertThat(server.faults().pending()).isZero();
  }

  @Test
  void beforeNext_runsTheHookJustBeforeTheMatchingRequest(GcsFakeBucket bucket) {
    server.plant(bucket.name(), "h", bytes("old"));
    server.faults().beforeNext(r -> r.operation() == GcsOperation.DOWNLOAD,
        () -> server.plant(bucket.name(), "h", bytes("new")));

    assertThat(single.readAllBytes(BlobId.of(bucket.name(), "h"))).isEqualTo(bytes("new"));
  }

  @Test
  void latency_waitsThroughTheInjectedSleeperBeforeEveryRequest(GcsFakeBucket bucket) {
    List<Duration> sleeps = new CopyOnWriteArrayList<>();
    server.faults().latency(Duration.ofMillis(250), sleeps::add);
    server.clearRequests();

    single.create(BlobInfo.newBuilder(bucket.name(), "slow").build(), bytes("s"));
    single.get(BlobId.of(bucket.name(), "slow"));

    assertThat(sleeps).hasSize(server.requests().size()).containsOnly(Duration.ofMillis(250)).hasSize(2);
  }

  @Test
  void faults_refuseBadArgumentsAndClearForgetsPendingOnes() {
    assertThatThrownBy(() -> server.faults().failNext(1, 200))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot inject status 200: an error status is 400 to 599");
    assertThatThrownBy(() -> server.faults().failNext(-1, 503))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot inject a fault -1 times: the count is negative");
    assertThatThrownBy(() -> server.faults().latency(Duration.ofMillis(-1), d -> { }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use latency PT-0.001S: it is negative");
    server.faults().failNext(3, 503).throttleWrites("b", "o", 2);
    assertThat(server.faults().pending()).isEqualTo(5);
    server.faults().clear();
    assertThat(server.faults().pending()).isZero();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
