package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import dev.tierlock.testkit.gcs.PreconditionMode;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The four preconditions of the fake server on every path, through the real client. */
@ExtendWith(GcsFakeServerExtension.class)
class GcsFakeServerPreconditionTest {

  private final GcsFakeServer server;
  private final Storage storage;

  GcsFakeServerPreconditionTest(GcsFakeServer server) {
    this.server = server;
    this.storage = TestStorage.singleAttempt(server);
  }

  @Test
  void ifGenerationMatchZero_createsOnlyWhenAbsent(GcsFakeBucket bucket) {
    BlobInfo info = BlobInfo.newBuilder(bucket.name(), "once").build();
    storage.create(info, bytes("first"), Storage.BlobTargetOption.doesNotExist());

    assertStatus(() -> storage.create(info, bytes("second"), Storage.BlobTargetOption.doesNotExist()), 412);
    assertThat(server.peek(bucket.name(), "once")).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("first")));
  }

  @Test
  void failedPrecondition_answersTheErrorBodyTheClientMapsTo412(GcsFakeBucket bucket) throws Exception {
    server.plant(bucket.name(), "x", bytes("x"));
    HttpResponse<byte[]> response = TestStorage.raw(server, "POST",
        "/upload/storage/v1/b/" + bucket.name() + "/o?uploadType=media&name=x&ifGenerationMatch=0",
        BodyPublishers.ofString("y"));

    assertThat(response.statusCode()).isEqualTo(412);
    JsonNode error = new ObjectMapper().readTree(response.body()).path("error");
    assertThat(error.path("code").asInt()).isEqualTo(412);
    assertThat(error.path("message").asText()).contains("ifGenerationMatch=0");
    assertThat(error.path("errors").get(0).path("reason").asText()).isEqualTo("conditionNotMet");
    assertThatThrownBy(() -> storage.create(BlobInfo.newBuilder(bucket.name(), "x").build(), bytes("z"),
        Storage.BlobTargetOption.doesNotExist()))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("does not hold")
        .satisfies(e -> assertThat(((StorageException) e).getReason()).isEqualTo("conditionNotMet"));
  }

  @Test
  void ifGenerationMatch_replacesOnlyTheNamedGeneration(GcsFakeBucket bucket) {
    BlobInfo info = BlobInfo.newBuilder(bucket.name(), "cas").build();
    long first = storage.create(info, bytes("1")).getGeneration();
    long second = storage.create(info, bytes("2"), Storage.BlobTargetOption.generationMatch(first)).getGeneration();

    assertThat(second).isGreaterThan(first);
    assertStatus(() -> storage.create(info, bytes("3"), Storage.BlobTargetOption.generationMatch(first)), 412);
    assertStatus(() -> storage.create(BlobInfo.newBuilder(bucket.name(), "absent").build(), bytes("3"),
        Storage.BlobTargetOption.generationMatch(first)), 412);
    assertThat(server.peek(bucket.name(), "cas")).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("2")));
  }

  @Test
  void ifGenerationNotMatch_answers304OnReadsAnd412OnWrites(GcsFakeBucket bucket) {
    Blob blob = storage.create(BlobInfo.newBuilder(bucket.name(), "nm").build(), bytes("v"));
    long generation = blob.getGeneration();

    assertStatus(() -> storage.get(BlobId.of(bucket.name(), "nm"), Storage.BlobGetOption.generationNotMatch(generation)),
        304);
    assertStatus(() -> storage.readAllBytes(BlobId.of(bucket.name(), "nm"),
        Storage.BlobSourceOption.generationNotMatch(generation)), 304);
    assertThat(storage.get(BlobId.of(bucket.name(), "nm"), Storage.BlobGetOption.generationNotMatch(generation - 1))
        .getGeneration()).isEqualTo(generation);
    assertStatus(() -> storage.create(BlobInfo.newBuilder(bucket.name(), "nm").build(), bytes("w"),
        Storage.BlobTargetOption.generationNotMatch(generation)), 412);
    assertThat(server.generation(bucket.name(), "nm")).hasValue(generation);
  }

  @Test
  void ifMetagenerationMatch_guardsPatches(GcsFakeBucket bucket) {
    storage.create(BlobInfo.newBuilder(bucket.name(), "m").build(), bytes("v"));
    BlobInfo change = BlobInfo.newBuilder(BlobId.of(bucket.name(), "m")).setMetadata(Map.of("k", "1")).build();

    Blob patched = storage.update(change, Storage.BlobTargetOption.metagenerationMatch(1L));
    assertThat(patched.getMetageneration()).isEqualTo(2L);
    assertStatus(() -> storage.update(change, Storage.BlobTargetOption.metagenerationMatch(1L)), 412);
    assertStatus(() -> storage.update(BlobInfo.newBuilder(BlobId.of(bucket.name(), "gone")).setMetadata(Map.of("k", "1"))
        .build(), Storage.BlobTargetOption.metagenerationMatch(1L)), 404);
    assertThat(storage.get(BlobId.of(bucket.name(), "m")).getMetageneration()).isEqualTo(2L);
  }

  @Test
  void ifMetagenerationNotMatch_answers304OnReadsAnd412OnPatches(GcsFakeBucket bucket) {
    storage.create(BlobInfo.newBuilder(bucket.name(), "mn").build(), bytes("v"));
    assertStatus(() -> storage.get(BlobId.of(bucket.name(), "mn"), Storage.BlobGetOption.metagenerationNotMatch(1L)),
        304);
    assertStatus(() -> storage.update(BlobInfo.newBuilder(BlobId.of(bucket.name(), "mn")).setMetadata(Map.of("a", "b"))
        .build(), Storage.BlobTargetOption.metagenerationNotMatch(1L)), 412);
    assertThat(storage.get(BlobId.of(bucket.name(), "mn"), Storage.BlobGetOption.metagenerationNotMatch(7L))
        .getMetageneration()).isEqualTo(1L);
  }

  @Test
  void deletePreconditions_deleteOnlyTheNamedGeneration(GcsFakeBucket bucket) {
    long generation = storage.create(BlobInfo.newBuilder(bucket.name(), "del").build(), bytes("v")).getGeneration();

    assertStatus(() -> storage.delete(BlobId.of(bucket.name(), "del"),
        Storage.BlobSourceOption.generationMatch(generation + 1)), 412);
    assertStatus(() -> storage.delete(BlobId.of(bucket.name(), "del"), Storage.BlobSourceOption.metagenerationMatch(2L)),
        412);
    assertThat(server.objectNames(bucket.name())).containsExactly("del");
    assertThat(storage.delete(BlobId.of(bucket.name(), "del"), Storage.BlobSourceOption.generationMatch(generation)))
        .isTrue();
    assertThat(storage.delete(BlobId.of(bucket.name(), "del"), Storage.BlobSourceOption.generationMatch(generation)))
        .isFalse();
  }

  @Test
  void malformedPrecondition_isRefusedWith400(GcsFakeBucket bucket) throws Exception {
    HttpResponse<byte[]> response = TestStorage.raw(server, "POST",
        "/upload/storage/v1/b/" + bucket.name() + "/o?uploadType=media&name=x&ifGenerationMatch=-1",
        BodyPublishers.ofString("y"));
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(new String(response.body(), StandardCharsets.UTF_8)).contains("not a non-negative integer");
    assertThat(server.objectNames(bucket.name())).isEmpty();
  }

  @Test
  void ignoredMode_appliesEveryWriteWhateverItsPrecondition(GcsFakeBucket bucket) {
    server.preconditions(bucket.name(), PreconditionMode.IGNORED);
    BlobInfo info = BlobInfo.newBuilder(bucket.name(), "broken").build();
    long first = storage.create(info, bytes("1"), Storage.BlobTargetOption.doesNotExist()).getGeneration();
    storage.create(info, bytes("2"), Storage.BlobTargetOption.doesNotExist());
    storage.create(info, bytes("3"), Storage.BlobTargetOption.generationMatch(first));

    assertThat(server.peek(bucket.name(), "broken")).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("3")));
    server.preconditions(bucket.name(), PreconditionMode.ENFORCED);
    assertStatus(() -> storage.create(info, bytes("4"), Storage.BlobTargetOption.doesNotExist()), 412);
  }

  private static void assertStatus(ThrowingCallable call, int status) {
    assertThatThrownBy(call)
        .isInstanceOf(StorageException.class)
        .hasMessageContaining(status == 404 ? "no such object" : status == 304 ? "Not Modified" : "does not hold")
        .satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(status));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
