package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import dev.tierlock.testkit.gcs.GcsRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Retry honesty: the client library retries writes that carry a generation precondition, so a 412
 * can answer a retry of the caller's own landed write. These tests reproduce that hazard on the
 * fake server (apply the write, lose the answer) and show that {@link GcsDatastore} never reports
 * such a write as "nothing changed".
 */
@ExtendWith(GcsFakeServerExtension.class)
class GcsRetryHonestyTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  private final GcsFakeServer server;
  private final Storage retrying;

  GcsRetryHonestyTest(GcsFakeServer server) {
    this.server = server;
    this.retrying = TestStorage.retrying(server);
  }

  @AfterEach
  void clearFaults() {
    server.faults().clear();
  }

  @Test
  void retryingClient_reportsItsOwnLandedCreateAsAConflict(GcsFakeBucket bucket) {
    server.faults().loseNextResponses(GcsRequest::isWrite, 1);
    server.clearRequests();

    StorageException conflict = ownWriteReportedAsConflict(bucket);

    assertThat(server.requests()).filteredOn(GcsRequest::isWrite).hasSize(2);
    assertThat(server.peek(bucket.name(), KEY.value())).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("mine")));
    assertThat(GcsErrorTranslator.showsEarlierAttempt(conflict)).isTrue();
  }

  @Test
  void datastore_onTheSameClient_reportsALostCreateAsOutcomeUnknownAfterOneRequest(GcsFakeBucket bucket) {
    try (GcsDatastore store = GcsDatastore.of(retrying, bucket.name(), "")) {
      server.faults().loseNextResponses(GcsRequest::isWrite, 1);
      server.clearRequests();

      assertThatThrownBy(() -> store.write(KEY, ObjectBody.of(bytes("mine")), WriteCondition.mustNotExist(),
          ObjectMetadata.EMPTY))
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageStartingWith("Cannot write object " + KEY + " in gs://" + bucket.name() + ": the connection failed")
          .hasMessageEndingWith("the change may have landed")
          .satisfies(e -> assertThat(((OutcomeUnknownException) e).code()).isEqualTo("outcome_unknown"));
      assertThat(server.requests()).filteredOn(GcsRequest::isWrite).hasSize(1);
      assertThat(server.peek(bucket.name(), KEY.value())).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("mine")));
    }
  }

  @Test
  void datastore_reportsLostCompareAndSwapAndDeleteAsOutcomeUnknown(GcsFakeBucket bucket) {
    try (GcsDatastore store = GcsDatastore.of(retrying, bucket.name(), "")) {
      WriteResult.Written first = (WriteResult.Written) store.write(KEY, ObjectBody.of(bytes("1")),
          WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      server.faults().loseNextResponses(GcsRequest::isWrite, 2);
      server.clearRequests();

      assertThatThrownBy(() -> store.write(KEY, ObjectBody.of(bytes("2")), WriteCondition.mustMatch(first.version()),
          ObjectMetadata.EMPTY))
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageContaining("the change may have landed");
      dev.tierlock.spi.ObjectVersion second = store.stat(KEY).orElseThrow().version();
      assertThatThrownBy(() -> store.delete(KEY, WriteCondition.mustMatch(second)))
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageStartingWith("Cannot delete object " + KEY);
      assertThat(server.requests()).filteredOn(GcsRequest::isWrite).hasSize(2);
      assertThat(server.objectNames(bucket.name())).isEmpty();
    }
  }

  @Test
  void datastore_reportsAGenuineConflictAsPreconditionFailedAfterOneRequest(GcsFakeBucket bucket) {
    server.plant(bucket.name(), KEY.value(), bytes("peer"));
    try (GcsDatastore store = GcsDatastore.of(retrying, bucket.name(), "")) {
      server.clearRequests();
      assertThat(store.write(KEY, ObjectBody.of(bytes("mine")), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
          .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
      assertThat(store.delete(KEY, WriteCondition.mustMatch(dev.tierlock.spi.ObjectVersion.of("1"))))
          .isEqualTo(DeleteResult.PRECONDITION_FAILED);
      assertThat(server.requests()).filteredOn(GcsRequest::isWrite).hasSize(2);
      assertThat(server.peek(bucket.name(), KEY.value())).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("peer")));
    }
  }

  @Test
  void translator_reportsA412ThatFollowedARetryAsOutcomeUnknown(GcsFakeBucket bucket) {
    server.faults().loseNextResponses(GcsRequest::isWrite, 1);
    StorageException conflict = ownWriteReportedAsConflict(bucket);

    assertThat(GcsErrorTranslator.answer(conflict, GcsErrorTranslator.Call.CHANGE))
        .isEqualTo(GcsErrorTranslator.Answer.FAILURE);
    DatastoreException translated = GcsErrorTranslator.failure(conflict, GcsErrorTranslator.Call.CHANGE,
        "write object " + KEY + " in gs://" + bucket.name());
    assertThat(translated).isInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("the precondition failed on a retried attempt")
        .hasCause(conflict);
  }

  @Test
  void derivedClients_makeOneAttemptPerChangeAndBoundEveryRequest() throws Exception {
    GcsClients clients = GcsClients.derive(retrying.getOptions(), Duration.ofSeconds(7));
    try {
      assertThat(clients.changes().getOptions().getRetrySettings().getMaxAttempts()).isEqualTo(1);
      assertThat(clients.reads().getOptions().getRetrySettings().getMaxAttempts()).isEqualTo(6);
      assertThat(clients.reads().getOptions().getRetrySettings().getTotalTimeoutDuration()).isEqualTo(Duration.ofSeconds(7));
      for (Storage client : new Storage[] {clients.reads(), clients.changes()}) {
        HttpTransportOptions transport = (HttpTransportOptions) client.getOptions().getTransportOptions();
        assertThat(transport.getConnectTimeout()).isEqualTo(7_000);
        assertThat(transport.getReadTimeout()).isEqualTo(7_000);
        assertThat(client.getOptions().getHost()).isEqualTo(server.endpoint().toString());
      }
    } finally {
      clients.close();
    }
  }

  private StorageException ownWriteReportedAsConflict(GcsFakeBucket bucket) {
    try {
      retrying.create(BlobInfo.newBuilder(bucket.name(), KEY.value()).build(), bytes("mine"),
          Storage.BlobTargetOption.doesNotExist());
    } catch (StorageException e) {
      assertThat(e.getCode()).as("the retry of a landed create-only write answers 412").isEqualTo(412);
      return e;
    }
    throw new AssertionError("the retried create-only write was expected to fail with 412");
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
