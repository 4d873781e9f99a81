package dev.tierlock.datastore.fs;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The metadata sidecar of one key: the user metadata of each object content it knows, by the
 * SHA-256 of the content. A write records the metadata of the current content and of its new
 * content before it moves the new file in, so a reader pairs whatever file it opened with the right
 * metadata, and a write that fails before its move leaves the current object's metadata intact.
 * Content this sidecar does not know (a file replaced by something other than the datastore) has
 * no metadata.
 *
 * <p>Text, one entry per block: a header line, a {@code key} line (for people reading the
 * directory), then {@code object <sha256>} lines each followed by {@code name=value} lines. Names
 * never hold {@code =} and values never hold a line break ({@link ObjectMetadata}'s rules), so the
 * form is unambiguous. Immutable.
 */
final class Sidecar {

  private static final String HEADER = "tierlock-fs-metadata 1";
  private static final String OBJECT = "object ";

  private static final Sidecar EMPTY = new Sidecar(Map.of());

  private final Map<String, ObjectMetadata> byContent;

  private Sidecar(Map<String, ObjectMetadata> byContent) {
    this.byContent = byContent;
  }

  /** Returns the sidecar of a key that has none. */
  static Sidecar empty() {
    return EMPTY;
  }

  /**
   * Parses a sidecar leniently: a file that is not a sidecar knows nothing, and entries that break
   * the metadata rules are dropped (such a file is only ever written by this class, atomically).
   */
  static Sidecar parse(byte[] bytes) {
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
    if (lines.length == 0 || !lines[0].equals(HEADER)) {
      return EMPTY;
    }
    Map<String, Map<String, String>> raw = new LinkedHashMap<>();
    @Nullable Map<String, String> current = null;
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (line.startsWith(OBJECT)) {
        current = raw.computeIfAbsent(line.substring(OBJECT.length()), d -> new TreeMap<>());
      } else if (current != null) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          current.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    }
    Map<String, ObjectMetadata> parsed = new LinkedHashMap<>();
    raw.forEach((digest, values) -> parsed.put(digest, ObjectMetadata.lenient(values)));
    return new Sidecar(parsed);
  }

  /**
   * Returns the metadata recorded for the content with this digest, or empty when this sidecar
   * does not know that content.
   */
  Optional<ObjectMetadata> metadataOf(String contentDigest) {
    return Optional.ofNullable(byContent.get(contentDigest));
  }

  /**
   * Encodes a sidecar.
   *
   * @param key the key it belongs to
   * @param entries metadata by content digest, in the order to write them
   */
  static byte[] encode(ObjectKey key, Map<String, ObjectMetadata> entries) {
    StringBuilder text = new StringBuilder(HEADER).append('\n');
    text.append("key ").append(key.value()).append('\n');
    entries.forEach((digest, metadata) -> {
      text.append(OBJECT).append(digest).append('\n');
      metadata.values().forEach((name, value) -> text.append(name).append('=').append(value).append('\n'));
    });
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }
}
