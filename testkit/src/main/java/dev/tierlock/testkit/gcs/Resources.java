package dev.tierlock.testkit.gcs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Renders the JSON resources of the GCS JSON API: objects, buckets, listings and error bodies.
 * 64-bit numbers (generation, metageneration, size) are strings, as the API sends them; hashes are
 * base64; times are RFC 3339 in UTC with milliseconds.
 */
final class Resources {

  static final ObjectMapper JSON = new ObjectMapper();

  private static final DateTimeFormatter RFC_3339 =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private Resources() {}

  static String time(Instant instant) {
    return RFC_3339.format(instant);
  }

  /** Returns the object resource ({@code storage#object}). */
  static ObjectNode object(FakeObject o, String endpoint) {
    String encodedName = URLEncoder.encode(o.name(), StandardCharsets.UTF_8).replace("+", "%20");
    ObjectNode node = JSON.createObjectNode();
    node.put("kind", "storage#object");
    node.put("id", o.bucket() + "/" + o.name() + "/" + o.generation());
    node.put("selfLink", endpoint + "/storage/v1/b/" + o.bucket() + "/o/" + encodedName);
    node.put("mediaLink", endpoint + "/download/storage/v1/b/" + o.bucket() + "/o/" + encodedName
        + "?generation=" + o.generation() + "&alt=media");
    node.put("name", o.name());
    node.put("bucket", o.bucket());
    node.put("generation", Long.toString(o.generation()));
    node.put("metageneration", Long.toString(o.metageneration()));
    node.put("contentType", o.contentType());
    node.put("storageClass", "STANDARD");
    node.put("size", Long.toString(o.size()));
    node.put("md5Hash", o.md5());
    node.put("crc32c", o.crc32c());
    node.put("etag", etag(o));
    node.put("timeCreated", time(o.created()));
    node.put("updated", time(o.updated()));
    node.put("timeStorageClassUpdated", time(o.created()));
    if (!o.metadata().isEmpty()) {
      ObjectNode metadata = node.putObject("metadata");
      new TreeMap<>(o.metadata()).forEach(metadata::put);
    }
    return node;
  }

  /** Returns an entity tag that changes with the generation and the metageneration. */
  static String etag(FakeObject o) {
    return "\"" + Long.toHexString(o.generation()) + "-" + o.metageneration() + "\"";
  }

  /** Returns the bucket resource ({@code storage#bucket}). */
  static ObjectNode bucket(BucketState b, String endpoint) {
    ObjectNode node = JSON.createObjectNode();
    node.put("kind", "storage#bucket");
    node.put("id", b.name());
    node.put("selfLink", endpoint + "/storage/v1/b/" + b.name());
    node.put("name", b.name());
    node.put("projectNumber", "0");
    node.put("metageneration", "1");
    node.put("location", "US");
    node.put("locationType", "multi-region");
    node.put("storageClass", "STANDARD");
    node.put("etag", "CAE=");
    node.put("timeCreated", time(b.created()));
    node.put("updated", time(b.created()));
    return node;
  }

  /** Returns a bucket listing ({@code storage#buckets}). */
  static ObjectNode buckets(List<BucketState> all, String endpoint) {
    ObjectNode node = JSON.createObjectNode();
    node.put("kind", "storage#buckets");
    ArrayNode items = node.putArray("items");
    all.forEach(b -> items.add(bucket(b, endpoint)));
    return node;
  }

  /** Returns an object listing page ({@code storage#objects}). */
  static ObjectNode objects(Listing.Page page, String endpoint) {
    ObjectNode node = JSON.createObjectNode();
    node.put("kind", "storage#objects");
    if (!page.items().isEmpty()) {
      ArrayNode items = node.putArray("items");
      page.items().forEach(o -> items.add(object(o, endpoint)));
    }
    if (!page.prefixes().isEmpty()) {
      ArrayNode prefixes = node.putArray("prefixes");
      page.prefixes().forEach(prefixes::add);
    }
    page.nextPageToken().ifPresent(token -> node.put("nextPageToken", token));
    return node;
  }

  /** Returns the error body the client library maps to a {@code StorageException} with the status. */
  static ObjectNode error(int status, String reason, String message) {
    ObjectNode node = JSON.createObjectNode();
    ObjectNode error = node.putObject("error");
    error.put("code", status);
    error.put("message", message);
    ObjectNode detail = error.putArray("errors").addObject();
    detail.put("domain", "global");
    detail.put("reason", reason);
    detail.put("message", message);
    return node;
  }

  /** Returns the {@code x-goog-hash} header value. */
  static String hashHeader(FakeObject o) {
    return "crc32c=" + o.crc32c() + ",md5=" + o.md5();
  }

  /** Returns the GCS response headers that describe an object generation. */
  static Map<String, String> objectHeaders(FakeObject o) {
    Map<String, String> headers = new TreeMap<>();
    headers.put("x-goog-generation", Long.toString(o.generation()));
    headers.put("x-goog-metageneration", Long.toString(o.metageneration()));
    headers.put("x-goog-hash", hashHeader(o));
    headers.put("x-goog-stored-content-length", Long.toString(o.size()));
    headers.put("x-goog-stored-content-encoding", "identity");
    headers.put("x-goog-storage-class", "STANDARD");
    headers.put("ETag", etag(o));
    return headers;
  }
}
