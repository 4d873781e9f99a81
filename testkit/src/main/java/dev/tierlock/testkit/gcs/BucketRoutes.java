package dev.tierlock.testkit.gcs;

import java.io.IOException;
import java.util.Map;

/** The bucket paths: {@code buckets.insert}, {@code get}, {@code delete}, {@code list}, and {@code objects.list}. */
final class BucketRoutes {

  private final ObjectStore store;
  private final String endpoint;

  BucketRoutes(ObjectStore store, String endpoint) {
    this.store = store;
    this.endpoint = endpoint;
  }

  /** Serves {@code POST /storage/v1/b}: 200 with the bucket, 409 when it exists. */
  void create(HttpCall call) throws IOException {
    String name = call.jsonBody().path("name").asText("");
    call.sendJson(200, Resources.bucket(store.createBucket(name), endpoint));
  }

  void get(HttpCall call, String bucket) throws IOException {
    call.sendJson(200, Resources.bucket(store.bucket(bucket), endpoint));
  }

  void delete(HttpCall call, String bucket) throws IOException {
    store.deleteBucket(bucket);
    call.sendEmpty(204, Map.of());
  }

  void list(HttpCall call) throws IOException {
    call.sendJson(200, Resources.buckets(store.buckets(), endpoint));
  }

  /** Serves {@code GET /storage/v1/b/{bucket}/o}: one page of the listing. */
  void listObjects(HttpCall call, String bucket) throws IOException {
    call.sendJson(200, Resources.objects(Listing.page(store.bucket(bucket), call.query()), endpoint));
  }
}
