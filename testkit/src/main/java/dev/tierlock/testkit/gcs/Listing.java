package dev.tierlock.testkit.gcs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Object listing with {@code prefix}, {@code delimiter}, {@code startOffset}, {@code endOffset},
 * {@code maxResults} and {@code pageToken}, as {@code objects.list} does: names in code point
 * order, names that hold the delimiter after the prefix collapsed into one prefix entry, items and
 * prefixes together counting toward the page size. A page token names the last entry returned
 * (an object name or a collapsed prefix); the next page starts after it.
 */
final class Listing {

  static final int MAX_PAGE = 1000;

  /**
   * One page of a listing.
   *
   * @param items the objects of the page
   * @param prefixes the collapsed prefixes of the page
   * @param next the token of the next page, or null on the last page
   */
  record Page(List<FakeObject> items, List<String> prefixes, @Nullable String next) {
    Optional<String> nextPageToken() {
      return Optional.ofNullable(next);
    }
  }

  private Listing() {}

  /**
   * Lists one page.
   *
   * @throws GcsFakeException 400 for a bad page size or token, or a parameter the fake does not emulate
   */
  static Page page(BucketState bucket, Map<String, String> query) {
    for (String unsupported : List.of("matchGlob", "includeFoldersAsPrefixes", "softDeleted")) {
      if (query.containsKey(unsupported)) {
        throw GcsFakeException.invalid("Cannot list bucket " + bucket.name() + ": the fake server does not emulate "
            + unsupported);
      }
    }
    for (String flag : List.of("versions", "includeTrailingDelimiter")) {
      if ("true".equals(query.get(flag))) {
        throw GcsFakeException.invalid("Cannot list bucket " + bucket.name() + ": the fake server does not emulate "
            + flag + "=true");
      }
    }
    String prefix = query.getOrDefault("prefix", "");
    String delimiter = query.get("delimiter");
    if (delimiter != null && delimiter.isEmpty()) {
      delimiter = null;
    }
    String startOffset = query.getOrDefault("startOffset", "");
    String endOffset = query.get("endOffset");
    int max = pageSize(bucket, query.get("maxResults"));
    Token after = Token.parse(bucket, query.get("pageToken"));

    List<FakeObject> items = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    String lastToken = null;
    String skipPrefix = after != null && after.isPrefix() ? after.value() : null;
    String from = maxOf(prefix, startOffset, after == null ? "" : after.value());
    for (FakeObject o : bucket.liveFrom(from)) {
      String name = o.name();
      if (!name.startsWith(prefix)) {
        break; // names come in order from at least the prefix, so none after this one has it
      }
      if (endOffset != null && BucketState.NAME_ORDER.compare(name, endOffset) >= 0) {
        break;
      }
      if (after != null && !after.isPrefix() && name.equals(after.value())) {
        continue;
      }
      if (skipPrefix != null && name.startsWith(skipPrefix)) {
        continue;
      }
      String collapsed = collapse(name, prefix, delimiter);
      if (items.size() + prefixes.size() == max) {
        return new Page(items, prefixes, lastToken);
      }
      if (collapsed != null) {
        prefixes.add(collapsed);
        skipPrefix = collapsed;
        lastToken = Token.encode(true, collapsed);
      } else {
        items.add(o);
        lastToken = Token.encode(false, name);
      }
    }
    return new Page(items, prefixes, null);
  }

  private static @Nullable String collapse(String name, String prefix, @Nullable String delimiter) {
    if (delimiter == null) {
      return null;
    }
    int at = name.indexOf(delimiter, prefix.length());
    return at < 0 ? null : name.substring(0, at + delimiter.length());
  }

  private static int pageSize(BucketState bucket, @Nullable String text) {
    if (text == null) {
      return MAX_PAGE;
    }
    try {
      int value = Integer.parseInt(text);
      if (value > 0) {
        return Math.min(value, MAX_PAGE);
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw GcsFakeException.invalid("Cannot list bucket " + bucket.name() + ": maxResults=" + text
        + " is not a positive integer");
  }

  private static String maxOf(String a, String b, String c) {
    String max = BucketState.NAME_ORDER.compare(a, b) >= 0 ? a : b;
    return BucketState.NAME_ORDER.compare(max, c) >= 0 ? max : c;
  }

  /** The last entry of a page: an object name or a collapsed prefix. */
  private record Token(boolean isPrefix, String value) {

    static String encode(boolean isPrefix, String value) {
      String text = (isPrefix ? "p:" : "o:") + value;
      return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    static @Nullable Token parse(BucketState bucket, @Nullable String token) {
      if (token == null || token.isEmpty()) {
        return null;
      }
      String text;
      try {
        text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        text = "";
      }
      if (!text.startsWith("p:") && !text.startsWith("o:")) {
        throw GcsFakeException.invalid("Cannot list bucket " + bucket.name() + ": invalid pageToken " + token);
      }
      return new Token(text.startsWith("p:"), text.substring(2));
    }
  }
}
