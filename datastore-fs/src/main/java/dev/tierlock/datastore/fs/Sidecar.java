package dev.tierlock.datastore.fs;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The metadata sidecar of one key: the user metadata of each file the datastore moved into place
 * at that key, by the SHA-256 of the file's content and the file's {@link FileIdentity} (its file
 * key and modification time). A write records the entry of the current file and of its new file
 * (the identity of the staged temp file, which the move keeps) before it moves the new file in, so
 * a reader pairs whatever file it opened with the right metadata, and a write that fails before its
 * move leaves the current object's metadata intact.
 *
 * <p><b>Only the datastore's own files have metadata.</b> An entry applies to a file only when both
 * its digest and its identity match the file that was opened. A file some other writer put at the
 * path has none, even with bytes equal to an earlier Tierlock write (an operator restoring a copy,
 * the original tool writing a shared directory): moved in, it is another file; written in place, it
 * has another modification time. It reads as a version without metadata, which differs from every
 * version the datastore wrote with metadata, so no commit id is ever claimed for bytes Tierlock did
 * not put there.
 *
 * <p><b>Entries that name no file</b> are bound by their digest alone: those of sidecars written by
 * earlier versions (format 1), and those written where the file system has no file keys. Where the
 * reading file system has file keys, such an entry applies only if it is the sidecar's newest entry
 * (the content of the last write any datastore made at the key: a file with exactly those bytes is
 * that write's content, never an earlier version's, so it cannot pass for the parent of a later
 * write); older ones are ignored, which costs at most one version read without its metadata until
 * the next write rewrites the sidecar in this format. Where the reading file system has no file
 * keys (the JDK's zip file system, Windows' default provider) a file cannot be told apart from
 * another with the same bytes, and every entry applies by digest, as in format 1.
 *
 * <p>Text: a header line ({@value #HEADER}), a {@code key} line (for people reading the directory),
 * then one block per entry: {@code object <sha256> file=<file key> modified=<ISO-8601 time>} (or
 * {@code object <sha256>} for an entry that names no file), followed by {@code name=value} lines.
 * Names never hold {@code =} and values never hold a line break ({@link ObjectMetadata}'s rules),
 * and the tokens of an object line never hold a space, so the form is unambiguous. Parsing is
 * lenient: unknown tokens of an object line are ignored, an entry whose identity cannot be read is
 * dropped, and a file of another format knows nothing. Immutable.
 */
final class Sidecar {

  /** The header of the current format. */
  static final String HEADER = "tierlock-fs-metadata 2";

  /** The header of the format before entries named their file. */
  static final String LEGACY_HEADER = "tierlock-fs-metadata 1";

  private static final String OBJECT = "object ";
  private static final String FILE = "file=";
  private static final String MODIFIED = "modified=";

  private static final Sidecar EMPTY = new Sidecar(List.of(), null);

  /**
   * One entry: the metadata the datastore wrote with one file.
   *
   * @param contentDigest lowercase hex SHA-256 of the file's bytes
   * @param file the file's identity, or {@code null} for an entry bound by its digest alone
   * @param metadata the metadata
   */
  record Entry(String contentDigest, @Nullable FileIdentity file, ObjectMetadata metadata) {}

  private final List<Entry> entries;
  private final @Nullable Entry newestUnbound;

  private Sidecar(List<Entry> entries, @Nullable Entry newestUnbound) {
    this.entries = entries;
    this.newestUnbound = newestUnbound;
  }

  /** Returns the sidecar of a key that has none. */
  static Sidecar empty() {
    return EMPTY;
  }

  /**
   * Parses a sidecar leniently: a file that is not a sidecar (or of a format this version does not
   * know) knows nothing, entries that break the metadata rules are dropped, and so are entries whose
   * identity cannot be read (such a file is only ever written by this class, atomically).
   */
  static Sidecar parse(byte[] bytes) {
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
    boolean legacy;
    if (lines.length > 0 && lines[0].equals(HEADER)) {
      legacy = false;
    } else if (lines.length > 0 && lines[0].equals(LEGACY_HEADER)) {
      legacy = true;
    } else {
      return EMPTY;
    }
    List<Block> blocks = new ArrayList<>();
    @Nullable Block current = null;
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (line.startsWith(OBJECT)) {
        current = Block.of(line.substring(OBJECT.length()), legacy);
        blocks.add(current);
      } else if (current != null) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          current.values.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    }
    List<Entry> parsed = new ArrayList<>();
    for (Block block : blocks) {
      if (block.readable) {
        parsed.add(new Entry(block.digest, block.file, ObjectMetadata.lenient(block.values)));
      }
    }
    @Nullable Entry newestUnbound = null;
    if (!blocks.isEmpty()) {
      Block newest = blocks.get(blocks.size() - 1);
      if (newest.readable && newest.file == null) {
        newestUnbound = parsed.get(parsed.size() - 1);
      }
    }
    return new Sidecar(List.copyOf(parsed), newestUnbound);
  }

  /**
   * Returns the metadata recorded for the file that was opened, or empty when this sidecar does
   * not know that file.
   *
   * @param contentDigest the digest of the bytes read from the file
   * @param opened the file's identity, or {@code null} when the file system has no file keys
   */
  Optional<ObjectMetadata> metadataOf(String contentDigest, @Nullable FileIdentity opened) {
    @Nullable Entry match = null;
    for (Entry entry : entries) {
      if (!entry.contentDigest().equals(contentDigest)) {
        continue;
      }
      if (opened == null || opened.equals(entry.file())) {
        match = entry; // the newest entry that matches
      }
    }
    if (match == null && newestUnbound != null && newestUnbound.contentDigest().equals(contentDigest)) {
      match = newestUnbound;
    }
    return match == null ? Optional.empty() : Optional.of(match.metadata());
  }

  /**
   * Encodes a sidecar in the current format.
   *
   * @param key the key it belongs to
   * @param entries the entries, oldest first (the last one is the newest)
   */
  static byte[] encode(ObjectKey key, List<Entry> entries) {
    StringBuilder text = new StringBuilder(HEADER).append('\n');
    text.append("key ").append(key.value()).append('\n');
    for (Entry entry : entries) {
      text.append(OBJECT).append(entry.contentDigest());
      @Nullable FileIdentity file = entry.file();
      if (file != null) {
        text.append(' ').append(FILE).append(file.fileToken()).append(' ').append(MODIFIED).append(file.modifiedToken());
      }
      text.append('\n');
      entry.metadata().values().forEach((name, value) -> text.append(name).append('=').append(value).append('\n'));
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** One parsed {@code object} line and the metadata lines below it. */
  private static final class Block {
    final String digest;
    final @Nullable FileIdentity file;
    final boolean readable;
    final Map<String, String> values = new TreeMap<>();

    private Block(String digest, @Nullable FileIdentity file, boolean readable) {
      this.digest = digest;
      this.file = file;
      this.readable = readable;
    }

    /** Parses what follows {@code object }: the digest, then (format 2) the file's identity. */
    static Block of(String rest, boolean legacy) {
      if (legacy) {
        return new Block(rest, null, true);
      }
      String[] tokens = rest.split(" ");
      Map<String, String> named = new HashMap<>();
      for (int i = 1; i < tokens.length; i++) {
        int eq = tokens[i].indexOf('=');
        if (eq > 0) {
          named.putIfAbsent(tokens[i].substring(0, eq + 1), tokens[i].substring(eq + 1));
        }
      }
      @Nullable String file = named.get(FILE);
      @Nullable String modified = named.get(MODIFIED);
      if (file == null && modified == null) {
        return new Block(tokens[0], null, true);
      }
      Optional<FileIdentity> identity = FileIdentity.parse(file, modified);
      return new Block(tokens[0], identity.orElse(null), identity.isPresent());
    }
  }
}
