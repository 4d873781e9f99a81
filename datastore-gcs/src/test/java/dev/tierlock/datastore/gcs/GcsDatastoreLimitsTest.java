package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import com.sun.net.httpserver.HttpServer;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import dev.tierlock.testkit.gcs.GcsOperation;
import dev.tierlock.testkit.gcs.GcsRequest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What a {@link GcsDatastore} says it is, its metadata capacity and its read bound. */
@ExtendWith(GcsFakeServerExtension.class)
class GcsDatastoreLimitsTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  private final GcsFakeServer server;
  private final Storage storage;

  GcsDatastoreLimitsTest(GcsFakeServer server) {
    this.server = server;
    this.storage = TestStorage.retrying(server);
  }

  @Test
  void identity_isTheHostTheClientSendsToTheBucketAndThePrefix(GcsFakeBucket bucket) {
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "/tier/root/")) {
      assertThat(store.identity())
          .isEqualTo(new DatastoreIdentity("gs", server.endpoint().toString(), bucket.name(), "tier/root"));
      assertThat(store.describe()).isEqualTo("gs://" + bucket.name() + "/tier/root?endpoint=" + server.endpoint());
    }
  }

  @Test
  void identity_isEqualOnlyForTheSameHostBucketAndPrefix(GcsFakeBucket bucket) throws IOException {
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "tier");
        GcsDatastore again = GcsDatastore.of(TestStorage.singleAttempt(server), bucket.name(), "tier/");
        GcsDatastore otherPrefix = GcsDatastore.of(storage, bucket.name(), "tier/sub");
        GcsDatastore otherBucket = GcsDatastore.of(storage, server.newBucket(), "tier");
        GcsFakeServer second = GcsFakeServer.start();
        GcsDatastore otherHost = GcsDatastore.of(TestStorage.retrying(second), bucket.name(), "tier")) {
      assertThat(again.identity()).isEqualTo(store.identity());
      assertThat(List.of(otherPrefix.identity(), otherBucket.identity(), otherHost.identity()))
          .doesNotContain(store.identity())
          .doesNotHaveDuplicates();
    }
  }

  @Test
  void identity_ofGooglesOwnHost_isNamedAndDescribeLeavesItOut() {
    Storage google = StorageOptions.http().setProjectId("p").setCredentials(NoCredentials.getInstance()).build()
        .getService();
    try (GcsDatastore store = GcsDatastore.of(google, "my-bucket", "tier")) {
      assertThat(store.identity())
          .isEqualTo(new DatastoreIdentity("gs", "https://storage.googleapis.com", "my-bucket", "tier"));
      assertThat(store.describe()).isEqualTo("gs://my-bucket/tier");
    }
  }

  @Test
  void identity_ofAHostWithCaseAndATrailingSlash_isCanonical() {
    Storage odd = StorageOptions.http().setHost("HTTP://Emulator.Example:4443/").setProjectId("p")
        .setCredentials(NoCredentials.getInstance()).build().getService();
    try (GcsDatastore store = GcsDatastore.of(odd, "my-bucket", "")) {
      assertThat(store.identity().endpoint()).isEqualTo("http://emulator.example:4443");
    }
  }

  @Test
  void maxMetadataBytes_isEightKibibytes(GcsFakeBucket bucket) {
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      assertThat(store.maxMetadataBytes()).isEqualTo(GcsDatastore.MAX_METADATA_BYTES).isEqualTo(8192)
          .isEqualTo(GcsFakeServer.MAX_CUSTOM_METADATA_BYTES);
    }
  }

  @Test
  void read_overTheBound_isRefusedByTheMetadataWithoutADownload(GcsFakeBucket bucket) {
    server.plant(bucket.name(), KEY.value(), new byte[100_000]);
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      server.clearRequests();

      assertThatThrownBy(() -> store.read(KEY, ReadCondition.always(), 1000))
          .isInstanceOf(ObjectTooLargeException.class)
          .hasMessage("Cannot read object " + KEY + " in gs://" + bucket.name()
              + ": it has 100000 bytes, more than the 1000 this read accepts; nothing was changed");

      assertThat(server.requests()).extracting(GcsRequest::operation).containsExactly(GcsOperation.GET_OBJECT);
    }
  }

  @Test
  void read_ofAnObjectThatGrewPastTheBoundAfterItsMetadata_isRefusedWhenItsNewMetadataIsRead(GcsFakeBucket bucket) {
    server.plant(bucket.name(), KEY.value(), new byte[10]);
    server.faults().beforeNext(r -> r.operation() == GcsOperation.DOWNLOAD,
        () -> server.plant(bucket.name(), KEY.value(), new byte[5000]));
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      assertThatThrownBy(() -> store.read(KEY, ReadCondition.always(), 1000))
          .isInstanceOf(ObjectTooLargeException.class)
          .satisfies(e -> assertThat(((ObjectTooLargeException) e).size()).isEqualTo(5000));
    }
  }

  @Test
  void read_fromAServerWhoseBodyIsLongerThanItsMetadata_asksForAndKeepsNoMoreThanTheBoundAndOne() throws IOException {
    List<String> ranges = new CopyOnWriteArrayList<>();
    HttpServer lying = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    lying.createContext("/", exchange -> {
      String path = exchange.getRequestURI().getPath();
      byte[] body;
      String type;
      if (path.startsWith("/download/")) {
        ranges.add(String.valueOf(exchange.getRequestHeaders().getFirst("Range")));
        body = new byte[100_000];
        type = "application/octet-stream";
        exchange.getResponseHeaders().add("x-goog-generation", "7");
      } else {
        body = ("{\"kind\":\"storage#object\",\"bucket\":\"bkt\",\"name\":\"" + KEY + "\",\"generation\":\"7\","
            + "\"metageneration\":\"1\",\"size\":\"10\"}").getBytes(StandardCharsets.UTF_8);
        type = "application/json";
      }
      exchange.getResponseHeaders().add("Content-Type", type);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      } catch (IOException e) {
        // the client stopped reading: what this test wants
      }
    });
    lying.start();
    try {
      Storage client = StorageOptions.http().setHost("http://127.0.0.1:" + lying.getAddress().getPort())
          .setProjectId("p").setCredentials(NoCredentials.getInstance()).build().getService();
      try (GcsDatastore store = GcsDatastore.of(client, "bkt", "")) {
        assertThatThrownBy(() -> store.read(KEY, ReadCondition.always(), 20))
            .isInstanceOf(ObjectTooLargeException.class)
            .hasMessage("Cannot read object " + KEY + " in gs://bkt: it is larger than that, more than the 20 this read"
                + " accepts; nothing was changed")
            .satisfies(e -> assertThat(((ObjectTooLargeException) e).size()).isEqualTo(-1));
      }
      assertThat(ranges).containsExactly("bytes=0-20");
    } finally {
      lying.stop(0);
    }
  }

  @Test
  void write_metadataOfEightKibibytes_isOneUploadAndRoundTrips(GcsFakeBucket bucket) {
    try (GcsDatastore store = GcsDatastore.of(storage, bucket.name(), "")) {
      server.clearRequests();
      ObjectMetadata full = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c".repeat(8192 - 18));

      store.write(KEY, ObjectBody.of(new byte[] {1}), WriteCondition.mustNotExist(), full);

      assertThat(server.requests()).extracting(GcsRequest::operation).containsExactly(GcsOperation.UPLOAD);
      assertThat(store.stat(KEY).orElseThrow().metadata()).isEqualTo(full);
    }
  }
}
