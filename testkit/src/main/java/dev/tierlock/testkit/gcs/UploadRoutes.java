package dev.tierlock.testkit.gcs;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The upload paths of {@code objects.insert}: {@code uploadType=multipart} (a {@code
 * multipart/related} body of JSON metadata and media), {@code uploadType=media} (the name in the
 * query, the media as the body) and {@code uploadType=resumable} (a session URL in {@code
 * Location}, then {@code PUT} chunks with {@code Content-Range}, answered 308 with {@code Range}
 * until the last one commits). Checksums the client declares ({@code md5Hash}, {@code crc32c}) are
 * verified, custom metadata over 8 KiB is refused (400, at the start of a resumable upload too), and
 * preconditions are checked when the object is committed.
 */
final class UploadRoutes {

  private final ObjectStore store;
  private final UploadSessions sessions;
  private final String endpoint;

  UploadRoutes(ObjectStore store, UploadSessions sessions, String endpoint) {
    this.store = store;
    this.sessions = sessions;
    this.endpoint = endpoint;
  }

  /** Returns the object name an upload request names (reading a multipart body if need be). */
  String objectName(HttpCall call) throws IOException {
    String fromQuery = call.query().get("name");
    if (fromQuery != null) {
      return fromQuery;
    }
    if ("multipart".equals(call.query().get("uploadType"))) {
      return resource(multipart(call).get(0)).path("name").asText("");
    }
    if ("resumable".equals(call.query().get("uploadType"))) {
      String id = call.query().get("upload_id");
      return id != null ? sessions.session(id).name : call.jsonBody().path("name").asText("");
    }
    return "";
  }

  /** Serves {@code POST /upload/storage/v1/b/{bucket}/o}. */
  void start(HttpCall call, String bucket) throws IOException {
    String type = call.query().getOrDefault("uploadType", "");
    Preconditions preconditions = Preconditions.from(call.query());
    switch (type) {
      case "multipart" -> {
        List<Multipart.Part> parts = multipart(call);
        if (parts.size() != 2) {
          throw GcsFakeException.invalid("Cannot upload to bucket " + bucket + ": a multipart upload has 2 parts, got "
              + parts.size());
        }
        JsonNode resource = resource(parts.get(0));
        String name = objectName(call);
        FakeObject written = commit(bucket, name, parts.get(1).content(), resource, parts.get(1).contentType(),
            preconditions);
        call.sendJson(200, Resources.object(written, endpoint));
      }
      case "media" -> {
        String name = call.query().getOrDefault("name", "");
        FakeObject written = commit(bucket, name, call.body(), Resources.JSON.createObjectNode(),
            call.header("Content-Type"), preconditions);
        call.sendJson(200, Resources.object(written, endpoint));
      }
      case "resumable" -> {
        JsonNode resource = call.jsonBody();
        String name = objectName(call);
        ObjectStore.checkObjectName(name);
        ObjectStore.checkMetadata(metadataOf(resource), "start a resumable upload of object " + name);
        store.bucket(bucket);
        String mediaType = call.header("X-Upload-Content-Type");
        UploadSessions.Session session = sessions.open(bucket, name,
            data -> commit(bucket, name, data, resource, mediaType, preconditions));
        String location = endpoint + "/upload/storage/v1/b/" + bucket + "/o?uploadType=resumable&name="
            + URLEncoder.encode(name, StandardCharsets.UTF_8) + "&upload_id=" + session.id;
        call.sendEmpty(200, Map.of("Location", location, "X-GUploader-UploadID", session.id));
      }
      default -> throw GcsFakeException.invalid("Cannot upload to bucket " + bucket + ": uploadType=" + type
          + " is not multipart, media or resumable");
    }
  }

  /** Serves {@code PUT /upload/storage/v1/b/{bucket}/o?upload_id=...}: one chunk or a status query. */
  void resume(HttpCall call, String bucket) throws IOException {
    String id = call.query().getOrDefault("upload_id", "");
    UploadSessions.Session session = sessions.session(id);
    if (!session.bucket.equals(bucket)) {
      throw GcsFakeException.notFound("Cannot resume upload " + id + ": it belongs to another bucket");
    }
    UploadSessions.Progress progress = sessions.accept(session, call.header("Content-Range"), call.body());
    if (progress instanceof UploadSessions.Progress.Done done) {
      call.sendJson(200, Resources.object(done.object(), endpoint));
    } else if (progress instanceof UploadSessions.Progress.Incomplete incomplete) {
      Map<String, String> headers = incomplete.persisted() == 0 ? Map.of()
          : Map.of("Range", "bytes=0-" + (incomplete.persisted() - 1));
      call.sendEmpty(308, headers);
    }
  }

  private FakeObject commit(
      String bucket,
      String name,
      byte[] data,
      JsonNode resource,
      @Nullable String mediaType,
      Preconditions preconditions) {
    String md5 = resource.path("md5Hash").asText("");
    if (!md5.isEmpty() && !md5.equals(FakeObject.md5Of(data))) {
      throw GcsFakeException.invalid("Cannot upload object " + name + ": the provided MD5 hash " + md5
          + " does not match the calculated hash " + FakeObject.md5Of(data));
    }
    String crc32c = resource.path("crc32c").asText("");
    if (!crc32c.isEmpty() && !crc32c.equals(FakeObject.crc32cOf(data))) {
      throw GcsFakeException.invalid("Cannot upload object " + name + ": the provided CRC32C " + crc32c
          + " does not match the calculated CRC32C " + FakeObject.crc32cOf(data));
    }
    String contentType = resource.path("contentType").asText("");
    if (contentType.isEmpty()) {
      contentType = mediaType == null || mediaType.isEmpty() ? "application/octet-stream" : mediaType;
    }
    return store.upload(bucket, name, data, contentType, metadataOf(resource), preconditions);
  }

  /** Returns the custom metadata of a resource; null values (deletions) are left out. */
  static Map<String, String> metadataOf(JsonNode resource) {
    Map<String, String> metadata = new TreeMap<>();
    JsonNode node = resource.path("metadata");
    node.properties().forEach(e -> {
      if (!e.getValue().isNull()) {
        metadata.put(e.getKey(), e.getValue().asText());
      }
    });
    return metadata;
  }

  private static List<Multipart.Part> multipart(HttpCall call) throws IOException {
    return Multipart.parse(call.header("Content-Type"), call.body());
  }

  private static JsonNode resource(Multipart.Part part) {
    if (part.content().length == 0) {
      return Resources.JSON.createObjectNode();
    }
    try {
      return Resources.JSON.readTree(part.content());
    } catch (IOException e) {
      throw GcsFakeException.invalid("Cannot parse the metadata part of a multipart upload: " + e.getMessage());
    }
  }
}
