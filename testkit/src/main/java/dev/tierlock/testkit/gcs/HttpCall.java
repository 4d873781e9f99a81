package dev.tierlock.testkit.gcs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.zip.GZIPInputStream;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP exchange of the fake server, with what handlers need: the effective method ({@code
 * X-HTTP-Method-Override} applied), the decoded path segments, the query, the request body
 * (gunzipped when {@code Content-Encoding: gzip}) and the ways to answer. When the call is marked
 * to lose its response, every answer closes the connection instead, after the handler has applied
 * the request's effect. Used by one thread.
 */
final class HttpCall {

  /** The largest request body the fake server accepts. */
  static final int MAX_BODY = 64 * 1024 * 1024;

  private final HttpExchange exchange;
  private final String method;
  private final List<String> segments;
  private final Map<String, String> query;
  private byte @Nullable [] body;
  private boolean loseResponse;
  private boolean answered;
  private IntConsumer beforeAnswer = status -> { };

  HttpCall(HttpExchange exchange) {
    this.exchange = exchange;
    String override = exchange.getRequestHeaders().getFirst("X-HTTP-Method-Override");
    String requested = exchange.getRequestMethod().toUpperCase(Locale.ROOT);
    this.method = override != null && requested.equals("POST") ? override.toUpperCase(Locale.ROOT) : requested;
    this.segments = decodeSegments(exchange.getRequestURI().getRawPath());
    this.query = decodeQuery(exchange.getRequestURI().getRawQuery());
  }

  String method() {
    return method;
  }

  List<String> segments() {
    return segments;
  }

  Map<String, String> query() {
    return query;
  }

  @Nullable String header(String name) {
    return exchange.getRequestHeaders().getFirst(name);
  }

  /** Reads the whole request body once; later calls return the same bytes. */
  byte[] body() throws IOException {
    if (body == null) {
      InputStream in = exchange.getRequestBody();
      if ("gzip".equalsIgnoreCase(header("Content-Encoding"))) {
        in = new GZIPInputStream(in);
      }
      try (InputStream stream = in) {
        byte[] bytes = stream.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
          throw new GcsFakeException(413, "uploadTooLarge", "Cannot accept request body: larger than " + MAX_BODY + " bytes");
        }
        body = bytes;
      }
    }
    return body;
  }

  /** Parses the body as JSON; an empty body is an empty object. */
  JsonNode jsonBody() throws IOException {
    byte[] bytes = body();
    if (bytes.length == 0) {
      return Resources.JSON.createObjectNode();
    }
    try {
      return Resources.JSON.readTree(bytes);
    } catch (IOException e) {
      throw GcsFakeException.invalid("Cannot parse request body: not JSON (" + e.getMessage() + ")");
    }
  }

  /** Marks this call to apply its effect and then close the connection without an answer. */
  void loseResponse() {
    this.loseResponse = true;
  }

  boolean answered() {
    return answered;
  }

  /**
   * Runs {@code hook} with the status of this call's answer just before it is sent (also when the
   * answer is then lost), so that what the hook records is in place before the client can see the
   * answer.
   */
  void beforeAnswer(IntConsumer hook) {
    this.beforeAnswer = hook;
  }

  void sendJson(int status, JsonNode json) throws IOException {
    send(status, "application/json; charset=UTF-8", Resources.JSON.writeValueAsBytes(json), Map.of());
  }

  void sendError(GcsFakeException error, Map<String, String> headers) throws IOException {
    if (error.status() == 304) {
      sendEmpty(304, headers);
      return;
    }
    ObjectNode body = Resources.error(error.status(), error.reason(), error.getMessage());
    send(error.status(), "application/json; charset=UTF-8", Resources.JSON.writeValueAsBytes(body), headers);
  }

  void sendEmpty(int status, Map<String, String> headers) throws IOException {
    beforeAnswer.accept(status);
    if (dropped()) {
      return;
    }
    headers.forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
    exchange.sendResponseHeaders(status, -1);
  }

  void send(int status, String contentType, byte[] bytes, Map<String, String> headers) throws IOException {
    beforeAnswer.accept(status);
    if (dropped()) {
      return;
    }
    headers.forEach((k, v) -> exchange.getResponseHeaders().set(k, v));
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** Returns whether the answer is to be lost; if so, closes the connection without one. */
  private boolean dropped() {
    answered = true;
    if (loseResponse) {
      exchange.close();
      return true;
    }
    return false;
  }

  private static List<String> decodeSegments(@Nullable String rawPath) {
    List<String> out = new ArrayList<>();
    if (rawPath == null) {
      return out;
    }
    for (String raw : rawPath.split("/")) {
      if (!raw.isEmpty()) {
        out.add(decode(raw.replace("+", "%2B")));
      }
    }
    return Collections.unmodifiableList(out);
  }

  private static Map<String, String> decodeQuery(@Nullable String rawQuery) {
    Map<String, String> out = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return out;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      out.putIfAbsent(name, value);
    }
    return Collections.unmodifiableMap(out);
  }

  private static String decode(String raw) {
    try {
      return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return raw; // a malformed escape names nothing that exists, so the lookup answers 404
    }
  }
}
