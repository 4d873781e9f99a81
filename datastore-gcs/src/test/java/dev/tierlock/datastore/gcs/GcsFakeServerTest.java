package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.ReadChannel;
import com.google.cloud.WriteChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import dev.tierlock.testkit.gcs.GcsOperation;
import dev.tierlock.testkit.gcs.GcsRequest;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The fake server's object paths, driven by the real client over HTTP (and raw HTTP for wire details). */
@ExtendWith(GcsFakeServerExtension.class)
class GcsFakeServerTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final GcsFakeServer server;
  private final Storage storage;

  GcsFakeServerTest(GcsFakeServer server) {
    this.server = server;
    this.storage = TestStorage.singleAttempt(server);
  }

  @Test
  void multipartUpload_storesBytesMetadataChecksumsAndGeneration(GcsFakeBucket bucket) throws Exception {
    byte[] bytes = "hello, fake".getBytes(StandardCharsets.UTF_8);
    Blob blob = storage.create(BlobInfo.newBuilder(bucket.name(), "dir/a b+c@ü").setMetadata(Map.of("k", "v"))
        .setContentType("text/plain").build(), bytes);

    assertThat(server.peek(bucket.name(), "dir/a b+c@ü")).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes));
    assertThat(blob.getGeneration()).isEqualTo(server.generation(bucket.name(), "dir/a b+c@ü").getAsLong());
    assertThat(blob.getMetageneration()).isEqualTo(1L);
    assertThat(blob.getSize()).isEqualTo(bytes.length);
    assertThat(blob.getMetadata()).containsExactlyEntriesOf(Map.of("k", "v"));
    assertThat(blob.getContentType()).isEqualTo("text/plain");
    assertThat(blob.getMd5()).isEqualTo(Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(bytes)));
    assertThat(blob.getCrc32c()).isEqualTo(crc32c(bytes));
    assertThat(blob.getUpdateTimeOffsetDateTime()).isNotNull();
  }

  @Test
  void generations_increaseStrictlyAcrossWritesAndObjects(GcsFakeBucket bucket) {
    List<Long> generations = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      generations.add(storage.create(BlobInfo.newBuilder(bucket.name(), "o" + (i % 2)).build(), new byte[] {(byte) i})
          .getGeneration());
    }
    assertThat(generations).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void mediaUpload_namesTheObjectInTheQuery(GcsFakeBucket bucket) throws Exception {
    HttpResponse<byte[]> response = TestStorage.raw(server, "POST",
        "/upload/storage/v1/b/" + bucket.name() + "/o?uploadType=media&name=media%2Fone",
        BodyPublishers.ofString("media body"), "Content-Type", "text/plain");

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode object = JSON.readTree(response.body());
    assertThat(object.path("name").asText()).isEqualTo("media/one");
    assertThat(object.path("generation").isTextual()).isTrue();
    assertThat(object.path("size").asText()).isEqualTo("10");
    assertThat(new String(storage.readAllBytes(BlobId.of(bucket.name(), "media/one")), StandardCharsets.UTF_8))
        .isEqualTo("media body");
    assertThat(storage.get(BlobId.of(bucket.name(), "media/one")).getContentType()).isEqualTo("text/plain");
  }

  @Test
  void multipartUpload_withWrongDeclaredMd5_isRefusedAndStoresNothing(GcsFakeBucket bucket) throws Exception {
    String boundary = "b0undary";
    String body = "--" + boundary + "\r\nContent-Type: application/json\r\n\r\n"
        + "{\"name\":\"bad\",\"md5Hash\":\"AAAAAAAAAAAAAAAAAAAAAA==\"}\r\n--" + boundary
        + "\r\nContent-Type: text/plain\r\n\r\ndata\r\n--" + boundary + "--\r\n";
    HttpResponse<byte[]> response = TestStorage.raw(server, "POST",
        "/upload/storage/v1/b/" + bucket.name() + "/o?uploadType=multipart", BodyPublishers.ofString(body),
        "Content-Type", "multipart/related; boundary=" + boundary);

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(new String(response.body(), StandardCharsets.UTF_8)).contains("MD5", "\"reason\":\"invalid\"");
    assertThat(server.objectNames(bucket.name())).isEmpty();
  }

  @Test
  void resumableUpload_ofThreeMebibytesInChunks_answers308UntilTheLastChunk(GcsFakeBucket bucket) throws Exception {
    byte[] bytes = new byte[3 * 1024 * 1024];
    new Random(7).nextBytes(bytes);
    server.clearRequests();
    try (WriteChannel writer = storage.writer(BlobInfo.newBuilder(bucket.name(), "big").build(),
        Storage.BlobWriteOption.doesNotExist())) {
      writer.setChunkSize(512 * 1024);
      for (int at = 0; at < bytes.length; at += 100_000) {
        writer.write(ByteBuffer.wrap(bytes, at, Math.min(100_000, bytes.length - at)));
      }
    }

    assertThat(server.peek(bucket.name(), "big")).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes));
    List<GcsRequest> uploads = server.requests().stream().filter(r -> r.operation() == GcsOperation.UPLOAD).toList();
    assertThat(uploads).hasSizeGreaterThanOrEqualTo(1 + 6);
    assertThat(uploads.get(0).method()).isEqualTo("POST");
    assertThat(uploads.subList(1, uploads.size())).allSatisfy(r -> assertThat(r.method()).isEqualTo("PUT"));
    assertThat(storage.get(BlobId.of(bucket.name(), "big")).getSize()).isEqualTo(bytes.length);
  }

  @Test
  void resumableUpload_overRawHttp_reports308RangesAcceptsResentBytesAndCommits(GcsFakeBucket bucket) throws Exception {
    HttpResponse<byte[]> start = TestStorage.raw(server, "POST",
        "/upload/storage/v1/b/" + bucket.name() + "/o?uploadType=resumable&name=r", BodyPublishers.ofString("{}"),
        "Content-Type", "application/json");
    assertThat(start.statusCode()).isEqualTo(200);
    String location = start.headers().firstValue("Location").orElseThrow();
    assertThat(location).contains("upload_id=");
    String session = location.substring(server.endpoint().toString().length());

    HttpResponse<byte[]> first = TestStorage.raw(server, "PUT", session, BodyPublishers.ofString("abcd"),
        "Content-Range", "bytes 0-3/*");
    assertThat(first.statusCode()).isEqualTo(308);
    assertThat(first.headers().firstValue("Range")).hasValue("bytes=0-3");
    HttpResponse<byte[]> resent = TestStorage.raw(server, "PUT", session, BodyPublishers.ofString("cdef"),
        "Content-Range", "bytes 2-5/*");
    assertThat(resent.headers().firstValue("Range")).hasValue("bytes=0-5");
    HttpResponse<byte[]> status = TestStorage.raw(server, "PUT", session, BodyPublishers.noBody(),
        "Content-Range", "bytes */*");
    assertThat(status.statusCode()).isEqualTo(308);
    assertThat(server.objectNames(bucket.name())).isEmpty();
    HttpResponse<byte[]> last = TestStorage.raw(server, "PUT", session, BodyPublishers.ofString("gh"),
        "Content-Range", "bytes 6-7/8");
    assertThat(last.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(last.body()).path("size").asText()).isEqualTo("8");
    assertThat(server.peek(bucket.name(), "r")).hasValueSatisfying(
        b -> assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("abcdefgh"));
    HttpResponse<byte[]> again = TestStorage.raw(server, "PUT", session, BodyPublishers.noBody(),
        "Content-Range", "bytes */8");
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(again.body()).path("generation").asText())
        .isEqualTo(Long.toString(server.generation(bucket.name(), "r").getAsLong()));
  }

  @Test
  void download_withRange_answers206WithContentRange(GcsFakeBucket bucket) throws Exception {
    byte[] bytes = new byte[10_000];
    new Random(3).nextBytes(bytes);
    storage.create(BlobInfo.newBuilder(bucket.name(), "ranged").build(), bytes);

    ByteArrayOutputStream read = new ByteArrayOutputStream();
    try (ReadChannel reader = storage.reader(BlobId.of(bucket.name(), "ranged"))) {
      reader.seek(1_000);
      reader.limit(3_500);
      ByteBuffer buffer = ByteBuffer.allocate(1024);
      while (reader.read(buffer) >= 0) {
        read.write(buffer.array(), 0, buffer.position());
        buffer.clear();
      }
    }
    assertThat(read.toByteArray()).isEqualTo(java.util.Arrays.copyOfRange(bytes, 1_000, 3_500));

    HttpResponse<byte[]> raw = TestStorage.raw(server, "GET",
        "/download/storage/v1/b/" + bucket.name() + "/o/ranged?alt=media", BodyPublishers.noBody(),
        "Range", "bytes=9990-");
    assertThat(raw.statusCode()).isEqualTo(206);
    assertThat(raw.headers().firstValue("Content-Range")).hasValue("bytes 9990-9999/10000");
    assertThat(raw.body()).isEqualTo(java.util.Arrays.copyOfRange(bytes, 9_990, 10_000));
    HttpResponse<byte[]> beyond = TestStorage.raw(server, "GET",
        "/download/storage/v1/b/" + bucket.name() + "/o/ranged?alt=media", BodyPublishers.noBody(),
        "Range", "bytes=10000-");
    assertThat(beyond.statusCode()).isEqualTo(416);
    assertThat(beyond.headers().firstValue("Content-Range")).hasValue("bytes */10000");
  }

  @Test
  void download_onBothUrlForms_sendsGenerationAndHashHeaders(GcsFakeBucket bucket) throws Exception {
    byte[] bytes = "headers".getBytes(StandardCharsets.UTF_8);
    Blob blob = storage.create(BlobInfo.newBuilder(bucket.name(), "h/x").build(), bytes);
    for (String path : List.of("/download/storage/v1/b/" + bucket.name() + "/o/h%2Fx?alt=media",
        "/storage/v1/b/" + bucket.name() + "/o/h%2Fx?alt=media")) {
      HttpResponse<byte[]> response = TestStorage.raw(server, "GET", path, BodyPublishers.noBody());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo(bytes);
      assertThat(response.headers().firstValue("x-goog-generation")).hasValue(blob.getGeneration().toString());
      assertThat(response.headers().firstValue("x-goog-metageneration")).hasValue("1");
      assertThat(response.headers().firstValue("x-goog-hash")).hasValue("crc32c=" + crc32c(bytes) + ",md5=" + blob.getMd5());
    }
    assertThat(storage.readAllBytes(BlobId.of(bucket.name(), "h/x", blob.getGeneration()))).isEqualTo(bytes);
    assertThatThrownBy(() -> storage.readAllBytes(BlobId.of(bucket.name(), "h/x", blob.getGeneration() + 1)))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("at generation")
        .satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(404));
  }

  @Test
  void patch_mergesMetadataRaisesMetagenerationAndKeepsGeneration(GcsFakeBucket bucket) throws Exception {
    Blob blob = storage.create(BlobInfo.newBuilder(bucket.name(), "p").setMetadata(Map.of("a", "1", "b", "2")).build(),
        new byte[] {1});
    Blob patched = storage.update(BlobInfo.newBuilder(BlobId.of(bucket.name(), "p"))
        .setMetadata(java.util.Collections.singletonMap("a", "9")).build());
    assertThat(patched.getGeneration()).isEqualTo(blob.getGeneration());
    assertThat(patched.getMetageneration()).isEqualTo(2L);
    assertThat(patched.getMetadata()).containsExactlyInAnyOrderEntriesOf(Map.of("a", "9", "b", "2"));

    HttpResponse<byte[]> overridden = TestStorage.raw(server, "POST", "/storage/v1/b/" + bucket.name() + "/o/p",
        BodyPublishers.ofString("{\"metadata\":{\"b\":null}}"), "X-HTTP-Method-Override", "PATCH",
        "Content-Type", "application/json");
    assertThat(overridden.statusCode()).isEqualTo(200);
    JsonNode json = JSON.readTree(overridden.body());
    assertThat(json.path("metageneration").asText()).isEqualTo("3");
    assertThat(json.path("metadata").toString()).isEqualTo("{\"a\":\"9\"}");
  }

  @Test
  void delete_answers204AndAbsentObjectsAre404(GcsFakeBucket bucket) throws Exception {
    storage.create(BlobInfo.newBuilder(bucket.name(), "d").build(), new byte[] {1});
    HttpResponse<byte[]> deleted = TestStorage.raw(server, "DELETE", "/storage/v1/b/" + bucket.name() + "/o/d",
        BodyPublishers.noBody());
    assertThat(deleted.statusCode()).isEqualTo(204);
    assertThat(server.peek(bucket.name(), "d")).isEmpty();
    assertThat(storage.delete(BlobId.of(bucket.name(), "d"))).isFalse();
    assertThat(storage.get(BlobId.of(bucket.name(), "d"))).isNull();
  }

  @Test
  void buckets_createGetAndRefuseDuplicatesAndNonEmptyDeletes(GcsFakeBucket bucket) {
    String name = bucket.name() + "-extra";
    assertThat(storage.create(BucketInfo.of(name)).getName()).isEqualTo(name);
    assertThat(storage.get(name).getName()).isEqualTo(name);
    assertThatThrownBy(() -> storage.create(BucketInfo.of(name)))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("already exists")
        .satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(409));
    storage.create(BlobInfo.newBuilder(name, "x").build(), new byte[0]);
    assertThatThrownBy(() -> storage.delete(name))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("not empty");
    assertThat(storage.get("no-such-bucket-here")).isNull();
    assertThatThrownBy(() -> storage.create(BlobInfo.newBuilder("no-such-bucket-here", "x").build(), new byte[0]))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("bucket does not exist");
  }

  @Test
  void unemulatedRequest_answers501AndChangesNothing(GcsFakeBucket bucket) {
    storage.create(BlobInfo.newBuilder(bucket.name(), "s1").build(), new byte[] {1});
    assertThatThrownBy(() -> storage.compose(Storage.ComposeRequest.of(bucket.name(), List.of("s1", "s1"), "c")))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("does not emulate")
        .satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(501));
    assertThat(server.objectNames(bucket.name())).containsExactly("s1");
  }

  @Test
  void backdoor_plantsPeeksAndRefusesUnknownBuckets(GcsFakeBucket bucket) {
    long generation = server.plant(bucket.name(), "planted", new byte[] {4, 2});
    assertThat(storage.get(BlobId.of(bucket.name(), "planted")).getGeneration()).isEqualTo(generation);
    assertThatThrownBy(() -> server.peek("missing-bucket", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot peek into bucket missing-bucket: no such bucket");
    assertThatThrownBy(() -> server.createBucket("UPPER"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid bucket name");
  }

  static String crc32c(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
  }
}
