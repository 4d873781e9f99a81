package dev.tierlock.testkit.gcs;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The object paths other than uploads: metadata get, media download (with {@code Range}), patch
 * and update (a metadata change that raises the metageneration) and delete, each honouring the
 * {@code generation} parameter and the four preconditions.
 */
final class ObjectRoutes {

  private static final Pattern RANGE = Pattern.compile("bytes=(\\d*)-(\\d*)");

  private final ObjectStore store;
  private final String endpoint;

  ObjectRoutes(ObjectStore store, String endpoint) {
    this.store = store;
    this.endpoint = endpoint;
  }

  /** Serves {@code objects.get}: the resource, or the media when {@code alt=media}. */
  void get(HttpCall call, String bucket, String name) throws IOException {
    FakeObject object = store.read(bucket, name, generation(call), Preconditions.from(call.query()));
    if ("media".equals(call.query().get("alt"))) {
      sendMedia(call, object);
    } else {
      call.sendJson(200, Resources.object(object, endpoint));
    }
  }

  /** Serves {@code objects.patch} (merge) and {@code objects.update} (replace). */
  void change(HttpCall call, String bucket, String name) throws IOException {
    JsonNode body = call.jsonBody();
    boolean merge = call.method().equals("PATCH");
    FakeObject changed = store.patch(bucket, name, generation(call), Preconditions.from(call.query()), live -> {
      Map<String, String> metadata = new TreeMap<>(merge ? live.metadata() : Map.of());
      body.path("metadata").properties().forEach(e -> {
        if (e.getValue().isNull()) {
          metadata.remove(e.getKey());
        } else {
          metadata.put(e.getKey(), e.getValue().asText());
        }
      });
      String contentType = body.hasNonNull("contentType") ? body.get("contentType").asText()
          : merge ? live.contentType() : "application/octet-stream";
      return live.withMetadata(metadata, contentType, store.now());
    });
    call.sendJson(200, Resources.object(changed, endpoint));
  }

  /** Serves {@code objects.delete}: 204 when deleted. */
  void delete(HttpCall call, String bucket, String name) throws IOException {
    store.delete(bucket, name, generation(call), Preconditions.from(call.query()));
    call.sendEmpty(204, Map.of());
  }

  private void sendMedia(HttpCall call, FakeObject object) throws IOException {
    Map<String, String> headers = new TreeMap<>(Resources.objectHeaders(object));
    headers.put("Accept-Ranges", "bytes");
    String range = call.header("Range");
    byte[] bytes = object.bytes();
    if (range == null) {
      call.send(200, object.contentType(), bytes, headers);
      return;
    }
    long[] span = span(range, bytes.length);
    if (span == null) {
      call.sendError(new GcsFakeException(416, "requestedRangeNotSatisfiable",
          "Cannot read object " + object.name() + ": the range " + range + " is not satisfiable for "
              + bytes.length + " bytes"), Map.of("Content-Range", "bytes */" + bytes.length));
      return;
    }
    headers.put("Content-Range", "bytes " + span[0] + "-" + span[1] + "/" + bytes.length);
    byte[] part = Arrays.copyOfRange(bytes, (int) span[0], (int) span[1] + 1);
    call.send(206, object.contentType(), part, headers);
  }

  /** Returns the first and last byte of a range, or null when it is not satisfiable. */
  private static long @Nullable [] span(String header, long size) {
    Matcher m = RANGE.matcher(header.trim());
    if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty())) {
      throw GcsFakeException.invalid("Cannot read with Range " + header + ": one range bytes=a-b, a- or -n expected");
    }
    long first;
    long last;
    if (m.group(1).isEmpty()) {
      long suffix = Long.parseLong(m.group(2));
      first = Math.max(0, size - suffix);
      last = size - 1;
    } else {
      first = Long.parseLong(m.group(1));
      last = m.group(2).isEmpty() ? size - 1 : Math.min(Long.parseLong(m.group(2)), size - 1);
    }
    return first >= size || first > last ? null : new long[] {first, last};
  }

  private static @Nullable Long generation(HttpCall call) {
    String text = call.query().get("generation");
    if (text == null) {
      return null;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw GcsFakeException.invalid("Cannot use generation=" + text + ": not an integer");
    }
  }
}
