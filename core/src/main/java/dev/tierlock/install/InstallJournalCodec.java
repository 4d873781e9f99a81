package dev.tierlock.install;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.tierlock.ExtensionName;
import dev.tierlock.internal.AtomicFileWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes an {@link InstallJournal} as JSON: {@code {schemaVersion, ownerId, stagingId,
 * extensionName, phase, lockfilePath, newChecksum, oldManifestDigest, newManifestDigest, roots:
 * [{index, role, live, stagingDir, old, new, liveExisted, hasNew}], manifest: {staged, live},
 * nestedRoots: [{relDir, strategy}]}}, every member always written ({@code null} where absent),
 * phases and roles in lowercase. Reading is strict: an unknown or missing member, a wrong type, a
 * duplicate member, another schema version, trailing content or a body over {@link #MAX_BYTES} is
 * refused. It checks form only (UUIDs, hex digests, names, absolute paths); whether the paths are the
 * ones the journal must name is {@link JournalCheck}'s concern. Stateless and thread-safe.
 */
final class InstallJournalCodec {

  /** The largest journal read; a real one is a few kilobytes. */
  static final int MAX_BYTES = 1024 * 1024;

  private static final JsonFactory FACTORY =
      JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private static final Set<String> TOP = Set.of("schemaVersion", "ownerId", "stagingId", "extensionName", "phase",
      "lockfilePath", "newChecksum", "oldManifestDigest", "newManifestDigest", "roots", "manifest", "nestedRoots");
  private static final Set<String> ROOT = Set.of("index", "role", "live", "stagingDir", "old", "new", "liveExisted",
      "hasNew");
  private static final Set<String> MANIFEST = Set.of("staged", "live");
  private static final Set<String> NESTED = Set.of("relDir", "strategy");

  private InstallJournalCodec() {}

  /**
   * Writes {@code journal} to {@code file} durably: a temp file beside it, forced, renamed over it
   * atomically, and the directory forced (a directory a first write creates is forced into its parent).
   *
   * @throws IOException if any step fails; the file then holds what it held before
   */
  static void write(Path file, InstallJournal journal) throws IOException {
    Set<Path> changed = new LinkedHashSet<>();
    write(file, journal, changed);
    SwapFiles.force(changed);
  }

  /**
   * Writes {@code journal} to {@code file} as {@link #write(Path, InstallJournal)} does, but adds the
   * directories it changed (the file's, and the parent of each one it created) to {@code changed}
   * instead of forcing them: the caller forces them, with the rest of a series of steps, before
   * anything relies on the journal having survived a crash.
   *
   * @throws IOException if any step fails; the file then holds what it held before
   */
  static void write(Path file, InstallJournal journal, Set<Path> changed) throws IOException {
    SwapFiles.createDirectories(file.getParent(), changed);
    AtomicFileWriter.writeUnforcedRename(file, encode(journal));
    changed.add(file.getParent());
  }

  /**
   * Reads the journal at {@code file}.
   *
   * @throws NoSuchFileException if there is none
   * @throws IOException if it cannot be read
   * @throws InstallException ({@code install_journal_invalid}) if it is not a journal of this schema
   */
  static InstallJournal read(Path file) throws IOException {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    }
    return decode(bytes, file);
  }

  /** Returns the bytes that record {@code journal}: pretty JSON with a trailing newline. */
  static byte[] encode(InstallJournal journal) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(2048);
    try (JsonGenerator json = FACTORY.createGenerator(out)) {
      json.useDefaultPrettyPrinter();
      json.writeStartObject();
      json.writeNumberField("schemaVersion", InstallJournal.SCHEMA_VERSION);
      json.writeStringField("ownerId", journal.ownerId());
      json.writeStringField("stagingId", journal.stagingId());
      json.writeStringField("extensionName", journal.extension().value());
      json.writeStringField("phase", journal.phase().name().toLowerCase(Locale.ROOT));
      json.writeStringField("lockfilePath", journal.lockfilePath());
      json.writeStringField("newChecksum", journal.newChecksum());
      json.writeStringField("oldManifestDigest", journal.oldManifestDigest());
      json.writeStringField("newManifestDigest", journal.newManifestDigest());
      json.writeArrayFieldStart("roots");
      for (InstallJournal.Root root : journal.roots()) {
        json.writeStartObject();
        json.writeNumberField("index", root.index());
        json.writeStringField("role", root.role().name().toLowerCase(Locale.ROOT));
        json.writeStringField("live", root.live().toString());
        json.writeStringField("stagingDir", root.stagingDir().toString());
        json.writeStringField("old", root.old().toString());
        json.writeStringField("new", root.incoming().toString());
        json.writeBooleanField("liveExisted", root.liveExisted());
        json.writeBooleanField("hasNew", root.hasNew());
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeObjectFieldStart("manifest");
      Path staged = journal.manifest().staged();
      json.writeStringField("staged", staged == null ? null : staged.toString());
      json.writeStringField("live", journal.manifest().live().toString());
      json.writeEndObject();
      json.writeArrayFieldStart("nestedRoots");
      for (InstallJournal.Nested nested : journal.nestedRoots()) {
        json.writeStartObject();
        json.writeStringField("relDir", nested.relDir());
        json.writeStringField("strategy", InstallJournal.Nested.COPIED);
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write an install journal in memory", e);
    }
    out.write('\n');
    return out.toByteArray();
  }

  /**
   * Reads a journal.
   *
   * @param bytes the file's bytes
   * @param file the file, named in errors
   * @throws InstallException ({@code install_journal_invalid}) if the bytes are not a journal of this schema
   */
  static InstallJournal decode(byte[] bytes, Path file) {
    if (bytes.length > MAX_BYTES) {
      throw InstallException.journalInvalid("(unknown)", file, "the file has " + bytes.length + " bytes, more than "
          + MAX_BYTES, null);
    }
    Object tree;
    try (JsonParser parser = FACTORY.createParser(bytes)) {
      if (parser.nextToken() == null) {
        throw InstallException.journalInvalid("(unknown)", file, "the file is empty", null);
      }
      tree = JsonTree.read(parser);
      if (parser.nextToken() != null) {
        throw InstallException.journalInvalid("(unknown)", file, "content follows the journal object", null);
      }
    } catch (JsonProcessingException e) {
      throw InstallException.journalInvalid("(unknown)", file, "the file is not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw InstallException.journalInvalid("(unknown)", file, "the file cannot be parsed: " + e.getMessage(), e);
    }
    String extension = tree instanceof Map<?, ?> map && map.get("extensionName") instanceof String text
        && ExtensionName.isValid(text) ? text : "(unknown)";
    try {
      return journal(new Members(tree, "the journal", TOP));
    } catch (IllegalArgumentException e) {
      throw InstallException.journalInvalid(extension, file, e.getMessage(), e);
    }
  }

  private static InstallJournal journal(Members top) {
    long schema = top.integer("schemaVersion");
    if (schema != InstallJournal.SCHEMA_VERSION) {
      throw new IllegalArgumentException("schema version " + schema + " is not " + InstallJournal.SCHEMA_VERSION);
    }
    String ownerId = uuid(top, "ownerId");
    String stagingId = uuid(top, "stagingId");
    String name = top.text("extensionName");
    if (!ExtensionName.isValid(name)) {
      throw new IllegalArgumentException("extensionName \"" + name + "\" is not a valid name");
    }
    InstallJournal.Phase phase = switch (top.text("phase")) {
      case "staged" -> InstallJournal.Phase.STAGED;
      case "swapped" -> InstallJournal.Phase.SWAPPED;
      default -> throw new IllegalArgumentException("phase \"" + top.text("phase") + "\" is not staged or swapped");
    };
    String lockfilePath = top.path("lockfilePath").toString();
    String newChecksum = hex(top, "newChecksum");
    String oldDigest = hex(top, "oldManifestDigest");
    String newDigest = hex(top, "newManifestDigest");
    List<InstallJournal.Root> roots = new ArrayList<>();
    for (Members root : top.objects("roots", ROOT)) {
      roots.add(root(root));
    }
    Members manifest = top.object("manifest", MANIFEST);
    Path staged = manifest.optionalPath("staged");
    List<InstallJournal.Nested> nested = new ArrayList<>();
    for (Members entry : top.objects("nestedRoots", NESTED)) {
      if (!entry.text("strategy").equals(InstallJournal.Nested.COPIED)) {
        throw new IllegalArgumentException("nested root strategy \"" + entry.text("strategy") + "\" is not copied");
      }
      nested.add(new InstallJournal.Nested(entry.text("relDir")));
    }
    return new InstallJournal(ownerId, stagingId, ExtensionName.of(name), phase, lockfilePath, newChecksum, oldDigest,
        newDigest, roots, new InstallJournal.Manifest(staged, manifest.path("live")), nested);
  }

  private static InstallJournal.Root root(Members root) {
    long index = root.integer("index");
    if (index < 0 || index > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("root index " + index + " is out of range");
    }
    SwapRoot.Role role = switch (root.text("role")) {
      case "extension" -> SwapRoot.Role.EXTENSION;
      case "bundle" -> SwapRoot.Role.BUNDLE;
      default -> throw new IllegalArgumentException("root role \"" + root.text("role") + "\" is not extension or bundle");
    };
    return new InstallJournal.Root((int) index, role, root.path("live"), root.path("stagingDir"), root.path("old"),
        root.path("new"), root.bool("liveExisted"), root.bool("hasNew"));
  }

  private static String uuid(Members members, String field) {
    String value = members.text(field);
    if (!SwapPlan.isUuid(value)) {
      throw new IllegalArgumentException(field + " \"" + value + "\" is not a UUID");
    }
    return value;
  }

  private static @Nullable String hex(Members members, String field) {
    String value = members.optionalText(field);
    if (value != null && !SwapPlan.isHex64(value)) {
      throw new IllegalArgumentException(field + " \"" + value + "\" is not 64 lowercase hex");
    }
    return value;
  }

  /** The members of one JSON object, exactly those expected. */
  private static final class Members {
    private final Map<?, ?> map;
    private final String where;

    Members(@Nullable Object value, String where, Set<String> expected) {
      if (!(value instanceof Map<?, ?> object)) {
        throw new IllegalArgumentException(where + " is not a JSON object");
      }
      for (Object key : object.keySet()) {
        if (!expected.contains(key)) {
          throw new IllegalArgumentException(where + " has the unknown member \"" + key + "\"");
        }
      }
      for (String key : expected) {
        if (!object.containsKey(key)) {
          throw new IllegalArgumentException(where + " lacks the member \"" + key + "\"");
        }
      }
      this.map = object;
      this.where = where;
    }

    String text(String field) {
      String value = optionalText(field);
      if (value == null) {
        throw new IllegalArgumentException(where + " member \"" + field + "\" is null");
      }
      return value;
    }

    @Nullable String optionalText(String field) {
      Object value = map.get(field);
      if (value != null && !(value instanceof String)) {
        throw new IllegalArgumentException(where + " member \"" + field + "\" is not a string");
      }
      return (String) value;
    }

    long integer(String field) {
      if (!(map.get(field) instanceof Long value)) {
        throw new IllegalArgumentException(where + " member \"" + field + "\" is not an integer");
      }
      return value;
    }

    boolean bool(String field) {
      if (!(map.get(field) instanceof Boolean value)) {
        throw new IllegalArgumentException(where + " member \"" + field + "\" is not a boolean");
      }
      return value;
    }

    Path path(String field) {
      Path value = optionalPath(field);
      if (value == null) {
        throw new IllegalArgumentException(where + " member \"" + field + "\" is null");
      }
      return value;
    }

    @Nullable Path optionalPath(String field) {
      String text = optionalText(field);
      if (text == null) {
        return null;
      }
      Path path = Path.of(text);
      if (!path.isAbsolute()) {
        throw new IllegalArgumentException(where + " member \"" + field + "\" is not an absolute path: " + text);
      }
      return path;
    }

    Members object(String field, Set<String> expected) {
      return new Members(map.get(field), where + " member \"" + field + "\"", expected);
    }

    List<Members> objects(String field, Set<String> expected) {
      if (!(map.get(field) instanceof List<?> list)) {
        throw new IllegalArgumentException(where + " member \"" + field + "\" is not an array");
      }
      List<Members> items = new ArrayList<>();
      for (int i = 0; i < list.size(); i++) {
        items.add(new Members(list.get(i), where + " " + field + "[" + i + "]", expected));
      }
      return items;
    }
  }
}
