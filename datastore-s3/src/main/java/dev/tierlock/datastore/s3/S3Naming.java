package dev.tierlock.datastore.s3;

import dev.tierlock.spi.ObjectKey;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/** The naming rules of an S3 datastore's location (bucket names, key prefixes) and how it is shown. */
final class S3Naming {

  private static final Pattern BUCKET_CHARACTERS = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern IP_ADDRESS = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final List<String> RESERVED_STARTS = List.of("xn--", "sthree-", "amzn-s3-demo-");
  private static final List<String> RESERVED_ENDS =
      List.of("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3");

  private S3Naming() {}

  /**
   * Returns what is wrong with a bucket name under the general-purpose bucket naming rules, or empty
   * when it follows them.
   */
  static Optional<String> bucketProblem(String bucket) {
    if (bucket.length() < 3 || bucket.length() > 63) {
      return Optional.of("a bucket name is 3 to 63 characters long");
    }
    if (!BUCKET_CHARACTERS.matcher(bucket).matches()) {
      return Optional.of(
          "a bucket name holds only lowercase letters, digits, '.' and '-', and starts and ends with a letter or digit");
    }
    if (bucket.contains("..")) {
      return Optional.of("a bucket name has no two adjacent periods");
    }
    if (IP_ADDRESS.matcher(bucket).matches()) {
      return Optional.of("a bucket name is not formatted as an IP address");
    }
    for (String start : RESERVED_STARTS) {
      if (bucket.startsWith(start)) {
        return Optional.of("a bucket name does not start with the reserved \"" + start + "\"");
      }
    }
    for (String end : RESERVED_ENDS) {
      if (bucket.endsWith(end)) {
        return Optional.of("a bucket name does not end with the reserved \"" + end + "\"");
      }
    }
    return Optional.empty();
  }

  /**
   * Normalises a key prefix: one leading {@code /} is dropped, and a non-empty prefix ends with
   * exactly one {@code /}. Normalising a normalised prefix returns it unchanged.
   *
   * @return the prefix, {@code ""} for the bucket root
   * @throws IllegalArgumentException if a segment is empty, {@code .} or {@code ..}, or the prefix
   *     holds a control character or backslash, or is longer than a key may be
   */
  static String normalisePrefix(String prefix) {
    String trimmed = prefix.startsWith("/") ? prefix.substring(1) : prefix;
    if (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    if (trimmed.isEmpty()) {
      if (prefix.length() > 1) {
        throw new IllegalArgumentException(
            "Cannot use key prefix \"" + prefix + "\": a prefix has no empty segment");
      }
      return "";
    }
    problemWith(trimmed).ifPresent(problem -> {
      throw new IllegalArgumentException("Cannot use key prefix \"" + printable(prefix) + "\": " + problem);
    });
    String normalised = trimmed + "/";
    if (normalised.getBytes(StandardCharsets.UTF_8).length >= ObjectKey.MAX_BYTES) {
      throw new IllegalArgumentException(
          "Cannot use key prefix \"" + printable(prefix) + "\": a prefix is shorter than " + ObjectKey.MAX_BYTES + " bytes");
    }
    return normalised;
  }

  /**
   * Returns {@code s3://bucket/prefix}, followed by {@code ?endpoint=...} for an endpoint other than
   * AWS's own, without the endpoint's user information.
   */
  static String describe(S3DatastoreConfig config, Optional<URI> endpoint) {
    String location = "s3://" + config.bucket() + "/" + config.prefix();
    return endpoint.map(uri -> location + "?endpoint=" + withoutUserInfo(uri)).orElse(location);
  }

  private static String withoutUserInfo(URI uri) {
    if (uri.getRawUserInfo() == null) {
      return uri.toString();
    }
    return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
        + Objects.requireNonNullElse(uri.getRawPath(), "");
  }

  private static Optional<String> problemWith(String trimmed) {
    for (int i = 0; i < trimmed.length(); i++) {
      char c = trimmed.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        return Optional.of("a prefix holds no control character");
      }
      if (c == '\\') {
        return Optional.of("a prefix holds no backslash");
      }
    }
    for (String segment : trimmed.split("/", -1)) {
      if (segment.isEmpty()) {
        return Optional.of("a prefix has no empty segment");
      }
      if (segment.equals(".") || segment.equals("..")) {
        return Optional.of("a prefix has no '.' or '..' segment");
      }
    }
    return Optional.empty();
  }

  private static String printable(String value) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < value.length() && out.length() < 200; i++) {
      char c = value.charAt(i);
      out.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return out.toString();
  }
}
