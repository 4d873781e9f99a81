package dev.tierlock.testkit.gcs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A parsed {@code multipart/related} body, as a multipart upload sends it: a JSON metadata part
 * followed by the media part. Binary-safe.
 */
final class Multipart {

  /**
   * One part.
   *
   * @param headers the part's headers, names lowercased
   * @param content the part's bytes
   */
  record Part(Map<String, String> headers, byte[] content) {
    String contentType() {
      return headers.getOrDefault("content-type", "application/octet-stream");
    }
  }

  private Multipart() {}

  /**
   * Parses a body.
   *
   * @param contentType the request's {@code Content-Type}, which carries the boundary
   * @throws GcsFakeException 400 when the body is not well formed
   */
  static List<Part> parse(@Nullable String contentType, byte[] body) {
    String boundary = boundary(contentType);
    byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
    List<Part> parts = new ArrayList<>();
    int at = indexOf(body, delimiter, 0);
    if (at < 0) {
      throw malformed("no boundary line");
    }
    while (true) {
      int lineEnd = at + delimiter.length;
      if (lineEnd + 1 < body.length && body[lineEnd] == '-' && body[lineEnd + 1] == '-') {
        return parts;
      }
      int partStart = skipLineBreak(body, lineEnd);
      int next = indexOf(body, delimiter, partStart);
      if (next < 0) {
        throw malformed("a part has no closing boundary");
      }
      int partEnd = next;
      if (partEnd >= 2 && body[partEnd - 2] == '\r' && body[partEnd - 1] == '\n') {
        partEnd -= 2;
      } else if (partEnd >= 1 && body[partEnd - 1] == '\n') {
        partEnd -= 1;
      }
      parts.add(part(Arrays.copyOfRange(body, partStart, Math.max(partStart, partEnd))));
      at = next;
    }
  }

  private static Part part(byte[] raw) {
    byte[] crlf = "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    int split = indexOf(raw, crlf, 0);
    int contentStart = split + crlf.length;
    if (split < 0) {
      split = indexOf(raw, "\n\n".getBytes(StandardCharsets.ISO_8859_1), 0);
      contentStart = split + 2;
    }
    if (split < 0) {
      throw malformed("a part has no blank line after its headers");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line : new String(raw, 0, split, StandardCharsets.UTF_8).split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
      }
    }
    return new Part(headers, Arrays.copyOfRange(raw, contentStart, raw.length));
  }

  private static String boundary(@Nullable String contentType) {
    if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("multipart/")) {
      throw malformed("Content-Type is " + contentType + ", not multipart/related");
    }
    for (String param : contentType.split(";")) {
      String p = param.trim();
      if (p.toLowerCase(Locale.ROOT).startsWith("boundary=")) {
        String value = p.substring("boundary=".length());
        return value.startsWith("\"") && value.endsWith("\"") && value.length() >= 2
            ? value.substring(1, value.length() - 1) : value;
      }
    }
    throw malformed("Content-Type has no boundary");
  }

  private static int skipLineBreak(byte[] body, int at) {
    if (at + 1 < body.length && body[at] == '\r' && body[at + 1] == '\n') {
      return at + 2;
    }
    return at < body.length && body[at] == '\n' ? at + 1 : at;
  }

  private static int indexOf(byte[] haystack, byte[] needle, int from) {
    outer:
    for (int i = Math.max(0, from); i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static GcsFakeException malformed(String reason) {
    return GcsFakeException.invalid("Cannot parse multipart upload: " + reason);
  }
}
