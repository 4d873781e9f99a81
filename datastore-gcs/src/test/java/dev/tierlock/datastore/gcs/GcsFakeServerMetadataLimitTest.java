package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.WriteChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fake server limits custom metadata to 8 KiB of names and values per object, as GCS does: an
 * upload (of any kind) or a patch over it answers 400, which the real client reports as a {@link
 * StorageException} with code 400, and nothing changes.
 */
@ExtendWith(GcsFakeServerExtension.class)
class GcsFakeServerMetadataLimitTest {

  private static final String NAME = "config/upstream_extensions.json";

  private final GcsFakeServer server;
  private final Storage storage;

  GcsFakeServerMetadataLimitTest(GcsFakeServer server) {
    this.server = server;
    this.storage = TestStorage.singleAttempt(server);
  }

  @Test
  void limit_isEightKibibytes() {
    assertThat(GcsFakeServer.MAX_CUSTOM_METADATA_BYTES).isEqualTo(8192);
  }

  @Test
  void multipartUpload_withExactlyEightKibibytes_isStored(GcsFakeBucket bucket) {
    Map<String, String> exact = metadataOfSize(8192);

    Blob blob = storage.create(info(bucket, exact), bytes("x"));

    assertThat(blob.getMetadata()).isEqualTo(exact);
    assertThat(storage.get(BlobId.of(bucket.name(), NAME)).getMetadata()).isEqualTo(exact);
  }

  @Test
  void multipartUpload_withOneByteMore_answers400AndStoresNothing(GcsFakeBucket bucket) {
    assertThatThrownBy(() -> storage.create(info(bucket, metadataOfSize(8193)), bytes("x")))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("the custom metadata holds 8193 bytes of names and values, more than the 8192 allowed")
        .satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(400));

    assertThat(server.objectNames(bucket.name())).isEmpty();
  }

  @Test
  void metadataIsCountedInUtf8Bytes(GcsFakeBucket bucket) {
    Map<String, String> wide = new TreeMap<>(metadataOfSize(8192 - 1));
    wide.put("\u00e9", ""); // one character but two bytes: 8193 bytes, 8192 characters

    assertThatThrownBy(() -> storage.create(info(bucket, wide), bytes("x")))
        .isInstanceOf(StorageException.class)
        .satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(400));
    assertThat(server.objectNames(bucket.name())).isEmpty();
  }

  @Test
  void resumableUpload_withOneByteMore_isRefusedAtTheStartAndStoresNothing(GcsFakeBucket bucket) {
    assertThatThrownBy(() -> {
      try (WriteChannel writer = storage.writer(info(bucket, metadataOfSize(8193)))) {
        writer.write(ByteBuffer.wrap(bytes("resumable")));
      }
    })
        .isInstanceOf(StorageException.class)
        .satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(400));

    assertThat(server.objectNames(bucket.name())).isEmpty();
  }

  @Test
  void patch_thatWouldPassTheLimit_answers400AndKeepsTheMetadata(GcsFakeBucket bucket) {
    Map<String, String> full = metadataOfSize(8192);
    Blob blob = storage.create(info(bucket, full), bytes("x"));
    Map<String, String> more = new TreeMap<>(full);
    more.put("z", "");

    assertThatThrownBy(() -> storage.update(blob.toBuilder().setMetadata(more).build()))
        .isInstanceOf(StorageException.class)
        .satisfies(e -> assertThat(((StorageException) e).getCode()).isEqualTo(400));

    Blob after = storage.get(BlobId.of(bucket.name(), NAME));
    assertThat(after.getMetadata()).isEqualTo(full);
    assertThat(after.getMetageneration()).isEqualTo(1L);
  }

  private static BlobInfo info(GcsFakeBucket bucket, Map<String, String> metadata) {
    return BlobInfo.newBuilder(bucket.name(), NAME).setMetadata(metadata).build();
  }

  /** Returns metadata of exactly {@code size} bytes: entries of a four-character name and up to 996 characters. */
  private static Map<String, String> metadataOfSize(int size) {
    Map<String, String> metadata = new TreeMap<>();
    int left = size;
    for (int i = 0; left > 0; i++) {
      String name = String.format("m%03d", i);
      int value = Math.min(996, left - name.length());
      metadata.put(name, "v".repeat(Math.max(0, value)));
      left -= name.length() + Math.max(0, value);
    }
    return metadata;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
