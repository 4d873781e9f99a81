package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import dev.tierlock.testkit.gcs.GcsOperation;
import dev.tierlock.testkit.gcs.GcsRequest;
import dev.tierlock.testkit.gcs.PreconditionMode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link GcsDatastore} behaviour beyond the contract: prefixing, request counts, uploads, errors. */
@ExtendWith(GcsFakeServerExtension.class)
class GcsDatastoreTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  private final GcsFakeServer server;
  private final Storage storage;

  GcsDatastoreTest(GcsFakeServer server) {
    this.server = server;
    this.storage = TestStorage.retrying(server);
  }

  @AfterEach
  void clearFaults() {
    server.faults().clear();
  }

  @Test
  void keys_getThePrefixExactlyOnceAndListingStaysInsideIt(GcsFakeBucket bucket) {
    server.plant(bucket.name(), "tier/rootless", bytes("outside"));
    server.plant(bucket.name(), "tier/root-sibling/x", bytes("outside"));
    server.plant(bucket.name(), "tier/root/bad//key", bytes("not a key"));
    server.plant(bucket.name(), "tier/root/folder/", bytes(""));
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "/tier/root/")) {
      store.write(KEY, ObjectBody.of(bytes("{}")), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);

      assertThat(store.describe()).isEqualTo("gs://" + bucket.name() + "/tier/root?endpoint=" + server.endpoint());
      assertThat(server.objectNames(bucket.name())).contains("tier/root/config/upstream_extensions.json");
      assertThat(store.list("")).extracting(StoredObject::key).containsExactly(KEY);
      assertThat(store.list("config/")).extracting(StoredObject::key).containsExactly(KEY);
    }
  }

  @Test
  void read_notModified_costsOneMetadataRequestAndNoDownload(GcsFakeBucket bucket) {
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      WriteResult.Written written = (WriteResult.Written) store.write(KEY, ObjectBody.of(bytes("v1")),
          WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      server.clearRequests();

      assertThat(store.read(KEY, ReadCondition.ifNoneMatch(written.version()), Lockfile.MAX_BYTES))
          .isEqualTo(new ReadResult.NotModified(written.version()));
      assertThat(server.requests()).extracting(GcsRequest::operation).containsExactly(GcsOperation.GET_OBJECT);
      server.clearRequests();

      ReadResult.Found found = (ReadResult.Found) store.read(KEY, ReadCondition.ifNoneMatch(ObjectVersion.of("1")), Lockfile.MAX_BYTES);
      assertThat(found.bytes()).isEqualTo(bytes("v1"));
      assertThat(found.object().version()).isEqualTo(written.version());
      assertThat(server.requests()).extracting(GcsRequest::operation)
          .containsExactly(GcsOperation.GET_OBJECT, GcsOperation.DOWNLOAD);
    }
  }

  @Test
  void read_whenReplacedBetweenMetadataAndBytes_readsTheNewGenerationWhole(GcsFakeBucket bucket) {
    server.plant(bucket.name(), KEY.value(), bytes("old"));
    server.faults().beforeNext(r -> r.operation() == GcsOperation.DOWNLOAD,
        () -> server.plant(bucket.name(), KEY.value(), bytes("new")));
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      ReadResult.Found found = (ReadResult.Found) store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES);

      assertThat(found.bytes()).isEqualTo(bytes("new"));
      assertThat(found.object().version().value())
          .isEqualTo(Long.toString(server.generation(bucket.name(), KEY.value()).getAsLong()));
    }
  }

  @Test
  void write_largerThanOneRequest_usesAResumableUploadUnderThePrecondition(GcsFakeBucket bucket) throws IOException {
    byte[] bytes = new byte[(int) GcsDatastore.ONE_REQUEST_LIMIT + 1];
    new Random(11).nextBytes(bytes);
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "big")) {
      server.clearRequests();
      WriteResult result = store.write(KEY, ObjectBody.of(bytes), WriteCondition.mustNotExist(), ObjectMetadata.of("a", "b"));

      assertThat(result).isInstanceOf(WriteResult.Written.class);
      assertThat(server.requests()).filteredOn(r -> r.operation() == GcsOperation.UPLOAD)
          .extracting(GcsRequest::method).startsWith("POST", "PUT");
      assertThat(store.write(KEY, ObjectBody.of(bytes), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
          .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
      try (ObjectStream stream = store.openStream(KEY).orElseThrow(); InputStream in = stream.stream()) {
        assertThat(stream.object().size()).isEqualTo(bytes.length);
        assertThat(stream.object().metadata()).isEqualTo(ObjectMetadata.of("a", "b"));
        assertThat(in.readAllBytes()).isEqualTo(bytes);
      }
    }
  }

  @Test
  void write_withAVersionThatIsNoGeneration_failsWithoutARequest(GcsFakeBucket bucket) {
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      server.clearRequests();
      assertThat(store.write(KEY, ObjectBody.of(bytes("x")), WriteCondition.mustMatch(ObjectVersion.of("etag-abc")),
          ObjectMetadata.EMPTY)).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
      assertThat(server.requests()).isEmpty();
      assertThat(server.objectNames(bucket.name())).isEmpty();
    }
  }

  @Test
  void delete_withMustNotExist_isRefusedWithoutARequest(GcsFakeBucket bucket) {
    server.plant(bucket.name(), KEY.value(), bytes("keep"));
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      server.clearRequests();
      assertThatThrownBy(() -> store.delete(KEY, WriteCondition.mustNotExist()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot delete object " + KEY + " in gs://" + bucket.name() + ": mustNotExist is not a delete condition");
      assertThat(server.requests()).isEmpty();
      assertThat(store.delete(KEY, WriteCondition.mustMatch(ObjectVersion.of("not-a-generation"))))
          .isEqualTo(DeleteResult.PRECONDITION_FAILED);
      assertThat(server.objectNames(bucket.name())).containsExactly(KEY.value());
    }
  }

  @Test
  void write_throttled_isBusySayingThrottledAndWritesNothing(GcsFakeBucket bucket) {
    server.faults().throttleWrites(bucket.name(), KEY.value(), 1);
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      assertThatThrownBy(() -> store.write(KEY, ObjectBody.of(bytes("x")), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
          .isInstanceOf(DatastoreBusyException.class)
          .hasMessageStartingWith("Cannot write object " + KEY + " in gs://" + bucket.name() + ": throttled by GCS")
          .hasMessageContaining("about one write per second")
          .satisfies(e -> assertThat(((DatastoreBusyException) e).code()).isEqualTo("datastore_busy"));
      assertThat(server.objectNames(bucket.name())).isEmpty();
    }
  }

  @Test
  void write_answered503_isOutcomeUnknownButReadsRetryPastIt(GcsFakeBucket bucket) {
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      server.faults().failNext(GcsRequest::isWrite, 1, 503);
      assertThatThrownBy(() -> store.write(KEY, ObjectBody.of(bytes("x")), WriteCondition.none(), ObjectMetadata.EMPTY))
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageContaining("the change may have landed")
          .satisfies(e -> assertThat(((OutcomeUnknownException) e).code()).isEqualTo("outcome_unknown"));

      server.plant(bucket.name(), KEY.value(), bytes("x"));
      server.faults().failNext(2, 503);
      assertThat(store.stat(KEY)).isPresent();
      server.faults().failNext(10, 503);
      assertThatThrownBy(() -> store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES))
          .isInstanceOf(DatastoreUnavailableException.class)
          .hasMessageContaining("GCS is unavailable (HTTP 503 backendError")
          .satisfies(e -> assertThat(((DatastoreUnavailableException) e).code()).isEqualTo("datastore_unavailable"));
    }
  }

  @Test
  void forbidden_isAccessDenied(GcsFakeBucket bucket) {
    server.faults().failNext(1, 403);
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      assertThatThrownBy(() -> store.list(""))
          .isInstanceOf(DatastoreAccessDeniedException.class)
          .hasMessageStartingWith("Cannot list prefix \"\" in gs://" + bucket.name() + ": GCS refused the credentials")
          .satisfies(e -> assertThat(((DatastoreAccessDeniedException) e).code()).isEqualTo("access_denied"));
    }
  }

  @Test
  void everyCall_endsWithinTheCallTimeoutWhenTheServerHangs(GcsFakeBucket bucket) throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "", Duration.ofMillis(300))) {
      server.faults().latency(Duration.ofDays(1), ignored -> release.await());
      assertThatThrownBy(() -> store.write(KEY, ObjectBody.of(bytes("x")), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageContaining("no answer within the call timeout");
      assertThatThrownBy(() -> store.stat(KEY))
          .isInstanceOf(DatastoreUnavailableException.class)
          .hasMessageContaining("Cannot stat object " + KEY);
    } finally {
      release.countDown();
    }
  }

  @Test
  void unreachableServer_isUnavailableForReadsAndWrites(GcsFakeBucket bucket) throws IOException {
    GcsFakeServer stopped = GcsFakeServer.start();
    stopped.close();
    try (GcsDatastore store = GcsDatastore.of(TestStorage.singleAttempt(stopped), bucket.name(), "")) {
      assertThatThrownBy(() -> store.write(KEY, ObjectBody.of(bytes("x")), WriteCondition.none(), ObjectMetadata.EMPTY))
          .isInstanceOf(DatastoreUnavailableException.class)
          .hasMessageContaining("GCS cannot be reached");
      assertThatThrownBy(() -> store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES))
          .isInstanceOf(DatastoreUnavailableException.class)
          .hasMessageContaining("GCS cannot be reached");
    }
  }

  @Test
  void openStream_whenTheGenerationIsReplacedBeforeReading_failsRatherThanMixVersions(GcsFakeBucket bucket)
      throws IOException {
    server.plant(bucket.name(), KEY.value(), bytes("first"));
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "");
        ObjectStream stream = store.openStream(KEY).orElseThrow()) {
      server.plant(bucket.name(), KEY.value(), bytes("second"));
      assertThatThrownBy(() -> stream.stream().readAllBytes())
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Cannot read object " + KEY + " (generation " + stream.object().version() + ")");
    }
  }

  @Test
  void bucketIgnoringPreconditions_letsACreateOnlyWriteOverwrite(GcsFakeBucket bucket) {
    server.preconditions(bucket.name(), PreconditionMode.IGNORED);
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      store.write(KEY, ObjectBody.of(bytes("a")), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      assertThat(store.write(KEY, ObjectBody.of(bytes("b")), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
          .isInstanceOf(WriteResult.Written.class);
      assertThat(server.peek(bucket.name(), KEY.value())).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("b")));
    }
  }

  @Test
  void close_leavesTheCallersClientOpen(GcsFakeBucket bucket) {
    server.plant(bucket.name(), "x", bytes("x"));
    GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "");
    store.close();
    store.close();
    assertThat(storage.get(BlobId.of(bucket.name(), "x")).getSize()).isEqualTo(1L);
  }

  @Test
  void of_withBadArguments_isRefusedWithAClearMessage() {
    assertThatThrownBy(() -> GcsDatastore.of(storage, "Bad_Bucket!", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot use GCS bucket \"Bad_Bucket!\"");
    assertThatThrownBy(() -> GcsDatastore.of(storage, "bucket", "a//b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot use GCS prefix \"a//b\" in bucket bucket");
    assertThatThrownBy(() -> GcsDatastore.of(storage, "bucket", "p", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use call timeout PT0S for gs://bucket/p: it must be positive");
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
