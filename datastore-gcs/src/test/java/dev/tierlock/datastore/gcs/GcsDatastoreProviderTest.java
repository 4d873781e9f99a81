package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreProvider;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The {@code gs} provider: ServiceLoader registration and URI parsing (always with a local endpoint). */
@ExtendWith(GcsFakeServerExtension.class)
class GcsDatastoreProviderTest {

  @Test
  void serviceLoader_findsTheProviderForSchemeGs() {
    List<DatastoreProvider> providers = ServiceLoader.load(DatastoreProvider.class).stream()
        .map(ServiceLoader.Provider::get)
        .filter(p -> p.scheme().equals("gs"))
        .toList();
    assertThat(providers).singleElement().isInstanceOf(GcsDatastoreProvider.class);
  }

  @Test
  void open_withEndpoint_readsAndWritesUnderThePrefix(GcsFakeBucket bucket) {
    URI uri = URI.create("gs://" + bucket.name() + "/team/tier?endpoint=" + bucket.endpoint() + "&timeout=PT5S");
    try (Datastore store = new GcsDatastoreProvider().open(uri)) {
      ObjectKey key = ObjectKey.of("config/a.json");
      store.write(key, ObjectBody.of("{}".getBytes(StandardCharsets.UTF_8)), WriteCondition.mustNotExist(),
          ObjectMetadata.EMPTY);

      assertThat(store.describe()).isEqualTo("gs://" + bucket.name() + "/team/tier?endpoint=" + bucket.endpoint());
      assertThat(((GcsDatastore) store).callTimeout()).isEqualTo(Duration.ofSeconds(5));
      assertThat(bucket.server().objectNames(bucket.name())).containsExactly("team/tier/config/a.json");
      assertThat(store.read(key, ReadCondition.always(), Lockfile.MAX_BYTES)).isInstanceOf(ReadResult.Found.class);
    }
  }

  @Test
  void open_withoutPrefixOrTimeout_usesTheBucketRootAndTheDefaultTimeout(GcsFakeBucket bucket) {
    try (Datastore store = new GcsDatastoreProvider().open(URI.create("gs://" + bucket.name() + "?endpoint="
        + bucket.endpoint()))) {
      assertThat(store.describe()).isEqualTo("gs://" + bucket.name() + "?endpoint=" + bucket.endpoint());
      assertThat(((GcsDatastore) store).callTimeout()).isEqualTo(GcsDatastore.DEFAULT_CALL_TIMEOUT);
      assertThat(store.list("")).isEmpty();
    }
  }

  @Test
  void open_badUris_areRefusedWithTheReason() {
    GcsDatastoreProvider provider = new GcsDatastoreProvider();
    assertRefused(provider, "s3://bucket/p", "Cannot open s3://bucket/p: the GCS provider opens gs:// URIs only");
    assertRefused(provider, "gs:/no-authority", "Cannot open gs:/no-authority: expected gs://bucket/prefix");
    assertRefused(provider, "gs://bucket/p?region=x",
        "Cannot open gs://bucket/p?region=x: unknown query parameter region (known: endpoint, project, timeout)");
    assertRefused(provider, "gs://bucket/p?endpoint=ftp://host",
        "Cannot open gs://bucket/p?endpoint=ftp://host: endpoint ftp://host is not an http or https URL");
    assertRefused(provider, "gs://bucket/p?timeout=10s",
        "Cannot open gs://bucket/p?timeout=10s: timeout 10s is not an ISO-8601 duration such as PT10S");
    assertRefused(provider, "gs://bucket/p?timeout=PT0S", "Cannot open gs://bucket/p?timeout=PT0S: timeout PT0S is not positive");
    assertRefused(provider, "gs://bucket/p?project=a&project=b",
        "Cannot open gs://bucket/p?project=a&project=b: query parameter project given twice");
    assertRefused(provider, "gs://bucket/p#frag", "Cannot open gs://bucket/p#frag: a gs:// URI has no fragment");
    assertThatThrownBy(() -> provider.open(URI.create("gs://bucket/a//b?endpoint=http://127.0.0.1:1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot use GCS prefix \"a//b\" in bucket bucket");
  }

  private static void assertRefused(GcsDatastoreProvider provider, String uri, String message) {
    assertThatThrownBy(() -> provider.open(URI.create(uri)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }
}
