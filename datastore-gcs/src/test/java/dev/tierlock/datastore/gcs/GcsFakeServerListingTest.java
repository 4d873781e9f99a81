package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.paging.Page;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Listing on the fake server: prefix, delimiter, offsets, pages and order, through the real client. */
@ExtendWith(GcsFakeServerExtension.class)
class GcsFakeServerListingTest {

  private final GcsFakeServer server;
  private final Storage storage;

  GcsFakeServerListingTest(GcsFakeServer server) {
    this.server = server;
    this.storage = TestStorage.singleAttempt(server);
  }

  @Test
  void list_withPrefix_returnsOnlyNamesStartingWithIt(GcsFakeBucket bucket) {
    put(bucket, "config/a", "config/b/c", "configx", "other/a");
    assertThat(names(storage.list(bucket.name(), Storage.BlobListOption.prefix("config/")).iterateAll()))
        .containsExactly("config/a", "config/b/c");
    assertThat(names(storage.list(bucket.name(), Storage.BlobListOption.prefix("config")).iterateAll()))
        .containsExactly("config/a", "config/b/c", "configx");
    assertThat(names(storage.list(bucket.name(), Storage.BlobListOption.prefix("none")).iterateAll())).isEmpty();
  }

  @Test
  void list_withDelimiter_collapsesDeeperNamesIntoPrefixes(GcsFakeBucket bucket) {
    put(bucket, "d/a", "d/b/1", "d/b/2", "d/c/1", "d/z");
    Page<Blob> page = storage.list(bucket.name(), Storage.BlobListOption.prefix("d/"),
        Storage.BlobListOption.currentDirectory());
    List<String> files = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    page.iterateAll().forEach(b -> (b.isDirectory() ? prefixes : files).add(b.getName()));

    assertThat(files).containsExactly("d/a", "d/z");
    assertThat(prefixes).containsExactly("d/b/", "d/c/");
  }

  @Test
  void list_withPageSize_followsPageTokensThroughEveryName(GcsFakeBucket bucket) {
    List<String> all = IntStream.range(0, 25).mapToObj(i -> String.format("p/%02d", i)).toList();
    put(bucket, all.toArray(String[]::new));

    Page<Blob> page = storage.list(bucket.name(), Storage.BlobListOption.pageSize(7));
    List<Integer> sizes = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    while (page != null) {
      List<String> names = names(page.getValues());
      sizes.add(names.size());
      seen.addAll(names);
      page = page.hasNextPage() ? page.getNextPage() : null;
    }
    assertThat(sizes).containsExactly(7, 7, 7, 4);
    assertThat(seen).isEqualTo(all);
    assertThat(names(storage.list(bucket.name(), Storage.BlobListOption.pageSize(7)).iterateAll())).isEqualTo(all);
  }

  @Test
  void list_withDelimiterAndPages_countsPrefixesAndNeverRepeatsThem(GcsFakeBucket bucket) {
    put(bucket, "a/1", "a/2", "b", "c/1", "c/2", "c/3", "d", "e/1");
    Page<Blob> page = storage.list(bucket.name(), Storage.BlobListOption.currentDirectory(),
        Storage.BlobListOption.pageSize(2));
    List<Set<String>> pages = new ArrayList<>();
    while (page != null) {
      pages.add(Set.copyOf(names(page.getValues())));
      page = page.hasNextPage() ? page.getNextPage() : null;
    }
    // the client puts a page's items before its prefixes; the server's order is a/, b | c/, d | e/
    assertThat(pages).containsExactly(Set.of("a/", "b"), Set.of("c/", "d"), Set.of("e/"));
  }

  @Test
  void list_withOffsets_returnsTheHalfOpenRange(GcsFakeBucket bucket) {
    put(bucket, "k1", "k2", "k3", "k4");
    assertThat(names(storage.list(bucket.name(), Storage.BlobListOption.startOffset("k2"),
        Storage.BlobListOption.endOffset("k4")).iterateAll())).containsExactly("k2", "k3");
  }

  @Test
  void list_ordersNamesByCodePointAsGcsDoes(GcsFakeBucket bucket) {
    put(bucket, "x\uD83D\uDE00", "x\uFFFD", "xa");
    assertThat(names(storage.list(bucket.name()).iterateAll())).containsExactly("xa", "x\uFFFD", "x\uD83D\uDE00");
  }

  @Test
  void list_withBadParameters_isRefusedWith400(GcsFakeBucket bucket) throws Exception {
    for (String query : List.of("pageToken=garbage", "maxResults=0", "versions=true", "matchGlob=*")) {
      HttpResponse<byte[]> response = TestStorage.raw(server, "GET",
          "/storage/v1/b/" + bucket.name() + "/o?" + query, BodyPublishers.noBody());
      assertThat(response.statusCode()).as(query).isEqualTo(400);
      assertThat(new String(response.body(), StandardCharsets.UTF_8)).as(query).contains("Cannot list bucket");
    }
    assertThatThrownBy(() -> storage.list(bucket.name(), Storage.BlobListOption.versions(true)).iterateAll()
        .forEach(b -> { }))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("versions=true");
  }

  private void put(GcsFakeBucket bucket, String... names) {
    for (String name : names) {
      storage.create(BlobInfo.newBuilder(bucket.name(), name).build(), name.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static List<String> names(Iterable<Blob> blobs) {
    return StreamSupport.stream(blobs.spliterator(), false).map(Blob::getName).toList();
  }
}
