package dev.tierlock;

import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The checkout's record of a lockfile change that is not published yet, in the state directory
 * ({@code <state>/managed-config-lockfile-unpublished}); it is never synced. The file is JSON
 * {@code {"version":2,"upserts":{...},"removals":[...],"incomplete"?:true,"base":{...},
 * "deletions"?:[...],"attempt"?:{"commit":...,"parentVersion"?:...,"parentLineage"?:...}}}, written
 * atomically (temp file, fsync, atomic move). See {@link PendingChange.Recorded} for what {@code
 * base} holds and {@link PendingChange.Attempt} for {@code attempt}. Version 1 records (this
 * format without {@code attempt}, or the original tool's without {@code base}) are read too.
 * Thread-safe (each call is one atomic file operation; callers serialise read-modify-write under
 * the checkout's transaction lock).
 */
public final class PendingChangeStore {

  /** The record's file name in the state directory. */
  public static final String FILE_NAME = "managed-config-lockfile-unpublished";

  private static final int FORMAT_VERSION = 2;

  private final Path path;

  private PendingChangeStore(Path path) {
    this.path = path;
  }

  /**
   * Returns the store of the checkout whose state directory is {@code stateDirectory}.
   *
   * @param stateDirectory the checkout's state directory
   * @return the store of its record
   */
  public static PendingChangeStore in(Path stateDirectory) {
    return new PendingChangeStore(stateDirectory.toAbsolutePath().normalize().resolve(FILE_NAME));
  }

  /** {@return the record's path} */
  public Path path() {
    return path;
  }

  /**
   * Reads the record.
   *
   * @return {@link PendingChange.None} when there is no record, {@link PendingChange.Recorded}, or
   *     {@link PendingChange.Unknown} with the reason when the file cannot be read or is invalid
   */
  public PendingChange read() {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(path)) {
      bytes = in.readNBytes(2 * LockfileCodec.MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      return PendingChange.None.INSTANCE;
    } catch (IOException e) {
      return new PendingChange.Unknown("the file cannot be read: " + e.getMessage());
    }
    if (bytes.length > 2 * LockfileCodec.MAX_BYTES) {
      return new PendingChange.Unknown("the file is larger than " + 2 * LockfileCodec.MAX_BYTES + " bytes");
    }
    try {
      return parse(decodeUtf8(bytes));
    } catch (IllegalArgumentException | LockfileCodec.EntryProblem e) {
      return new PendingChange.Unknown(e.getMessage());
    }
  }

  /**
   * Records a settled change that is not published, with the shared entries it was made on (only
   * the touched names are kept).
   *
   * @param delta the change left to publish
   * @param base the shared lockfile it was made on
   * @throws LocalFileException if the record cannot be written; the old record is then unchanged
   */
  public void record(LockfileDelta delta, Lockfile base) {
    record(delta, base, List.of());
  }

  /**
   * Records a settled change that is not published, with the shared entries it was made on (only
   * the touched names are kept) and the tier paths to delete once it is.
   *
   * @param delta the change left to publish
   * @param base the shared lockfile it was made on
   * @param deletions the tier paths to delete once it is published
   * @throws LocalFileException if the record cannot be written; the old record is then unchanged
   */
  public void record(LockfileDelta delta, Lockfile base, List<TierPath> deletions) {
    write(new PendingChange.Recorded(delta, base.restrictedTo(delta.names()), false, deletions, null));
  }

  /**
   * Records, just before the lockfile write {@code attempt} is sent, the settled change it publishes
   * (as {@link #record(LockfileDelta, Lockfile, List)} does) and the attempt itself, so that a
   * process that dies before it learns the outcome can tell on replay whether the write landed.
   *
   * @param delta the change the write publishes
   * @param base the shared lockfile it was made on
   * @param deletions the tier paths to delete once it is published
   * @param attempt the write about to be sent
   * @throws LocalFileException if the record cannot be written; the old record is then unchanged
   */
  public void recordAttempt(LockfileDelta delta, Lockfile base, List<TierPath> deletions, PendingChange.Attempt attempt) {
    write(new PendingChange.Recorded(delta, base.restrictedTo(delta.names()), false, deletions, attempt));
  }

  /**
   * Records, ahead of running a change, the change replayed so far and the whole shared lockfile
   * fetched before it, so that a change interrupted before it settles can be recovered.
   *
   * @param delta the change replayed so far
   * @param base the whole shared lockfile fetched before the change
   * @throws LocalFileException if the record cannot be written; the old record is then unchanged
   */
  public void recordIncomplete(LockfileDelta delta, Lockfile base) {
    recordIncomplete(delta, base, List.of());
  }

  /**
   * Records ahead of running a change, as {@link #recordIncomplete(LockfileDelta, Lockfile)} does,
   * with the tier paths to delete replayed so far.
   *
   * @param delta the change replayed so far
   * @param base the whole shared lockfile fetched before the change
   * @param deletions the tier paths to delete replayed so far
   * @throws LocalFileException if the record cannot be written; the old record is then unchanged
   */
  public void recordIncomplete(LockfileDelta delta, Lockfile base, List<TierPath> deletions) {
    write(new PendingChange.Recorded(delta, base, true, deletions, null));
  }

  /**
   * Deletes the record.
   *
   * @throws LocalFileException if it cannot be deleted
   */
  public void clear() {
    try {
      if (Files.deleteIfExists(path)) {
        AtomicFileWriter.forceDirectory(path.getParent());
      }
    } catch (IOException e) {
      throw new LocalFileException("Cannot delete pending-change record " + path + ": " + e.getMessage(), e);
    }
  }

  private void write(PendingChange.Recorded record) {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("version", new JsonValue.Num(Integer.toString(FORMAT_VERSION)));
    Map<String, JsonValue> upserts = new LinkedHashMap<>();
    record.delta().upserts().forEach((name, entry) -> upserts.put(name.value(), entry.toJson()));
    members.put("upserts", new JsonValue.Obj(upserts));
    members.put("removals", new JsonValue.Arr(
        record.delta().removals().stream().map(n -> (JsonValue) new JsonValue.Str(n.value())).toList()));
    if (record.isIncomplete()) {
      members.put("incomplete", JsonValue.Literal.TRUE);
    }
    members.put("base", LockfileCodec.toJson(record.base().orElse(Lockfile.EMPTY)));
    if (!record.deletions().isEmpty()) {
      members.put("deletions", paths(record.deletions()));
    }
    record.attempt().ifPresent(attempt -> members.put("attempt", attemptJson(attempt)));
    StringBuilder out = new StringBuilder();
    new JsonValue.Obj(members).writePretty(out, 0);
    out.append('\n');
    try {
      AtomicFileWriter.write(path, out.toString().getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new LocalFileException("Cannot write pending-change record " + path + ": " + e.getMessage(), e);
    }
  }

  private static JsonValue attemptJson(PendingChange.Attempt attempt) {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("commit", new JsonValue.Str(attempt.commitId()));
    attempt.parent().ifPresent(parent -> {
      members.put("parentVersion", new JsonValue.Str(parent.version().value()));
      members.put("parentLineage", new JsonValue.Str(parent.lineageText()));
    });
    return new JsonValue.Obj(members);
  }

  private static PendingChange parse(String text) throws LockfileCodec.EntryProblem {
    JsonValue root = JsonValue.parse(text);
    if (!(root instanceof JsonValue.Obj obj)) {
      throw new IllegalArgumentException("the record is not a JSON object");
    }
    Map<String, JsonValue> m = obj.members();
    if (!(m.get("version") instanceof JsonValue.Num n) || !(n.literal().equals("1") || n.literal().equals("2"))) {
      throw new IllegalArgumentException("the record's version is not 1 or " + FORMAT_VERSION);
    }
    Map<ExtensionName, LockfileEntry> upserts = entries(m.get("upserts"), "upserts");
    TreeSet<ExtensionName> removals = new TreeSet<>();
    JsonValue rawRemovals = m.getOrDefault("removals", new JsonValue.Arr(List.of()));
    if (!(rawRemovals instanceof JsonValue.Arr arr)) {
      throw new IllegalArgumentException("\"removals\" is not an array");
    }
    for (JsonValue item : arr.items()) {
      if (!(item instanceof JsonValue.Str s) || !ExtensionName.isValid(s.value())) {
        throw new IllegalArgumentException("\"removals\" holds something that is not an extension name: "
            + item.toCompactString());
      }
      removals.add(ExtensionName.of(s.value()));
    }
    LockfileDelta delta = new LockfileDelta(upserts, removals);
    JsonValue rawIncomplete = m.get("incomplete");
    boolean incomplete = rawIncomplete == JsonValue.Literal.TRUE;
    if (rawIncomplete != null && rawIncomplete != JsonValue.Literal.TRUE && rawIncomplete != JsonValue.Literal.FALSE) {
      throw new IllegalArgumentException("\"incomplete\" is not a boolean");
    }
    List<TierPath> deletions = paths(m.get("deletions"), "deletions");
    PendingChange.Attempt attempt = attempt(m.get("attempt"));
    JsonValue rawBase = m.get("base");
    if (rawBase == null) {
      if (incomplete) {
        throw new IllegalArgumentException("the record is incomplete but has no base");
      }
      return new PendingChange.Recorded(delta, null, false, deletions, attempt);
    }
    if (incomplete && attempt != null) {
      throw new IllegalArgumentException("the record is incomplete but has a publish attempt");
    }
    return new PendingChange.Recorded(delta, Lockfile.of(entries(rawBase, "base")), incomplete, deletions, attempt);
  }

  private static PendingChange.@Nullable Attempt attempt(@Nullable JsonValue raw) {
    if (raw == null) {
      return null;
    }
    if (!(raw instanceof JsonValue.Obj obj) || !(obj.members().get("commit") instanceof JsonValue.Str commit)) {
      throw new IllegalArgumentException("\"attempt\" is not an object with a \"commit\"");
    }
    JsonValue version = obj.members().get("parentVersion");
    if (version == null) {
      return PendingChange.Attempt.of(commit.value(), null);
    }
    if (!(version instanceof JsonValue.Str v) || !(obj.members().get("parentLineage") instanceof JsonValue.Str lineage)) {
      throw new IllegalArgumentException("\"attempt\" has a parent without a version and a lineage");
    }
    return PendingChange.Attempt.of(commit.value(),
        new LockfileHead(ObjectVersion.of(v.value()), LockfileHead.parse(lineage.value())));
  }

  private static JsonValue.Arr paths(List<TierPath> paths) {
    return new JsonValue.Arr(paths.stream().map(p -> (JsonValue) new JsonValue.Str(p.value())).toList());
  }

  private static List<TierPath> paths(@Nullable JsonValue raw, String field) {
    if (raw == null) {
      return List.of();
    }
    if (!(raw instanceof JsonValue.Arr arr)) {
      throw new IllegalArgumentException("\"" + field + "\" is not an array");
    }
    List<TierPath> out = new ArrayList<>();
    for (JsonValue item : arr.items()) {
      if (!(item instanceof JsonValue.Str s)) {
        throw new IllegalArgumentException("\"" + field + "\" holds something that is not a tier path: " + item.toCompactString());
      }
      out.add(TierPath.of(s.value()));
    }
    return out;
  }

  private static Map<ExtensionName, LockfileEntry> entries(@Nullable JsonValue raw, String field)
      throws LockfileCodec.EntryProblem {
    if (raw == null) {
      return Map.of();
    }
    if (!(raw instanceof JsonValue.Obj obj)) {
      throw new IllegalArgumentException("\"" + field + "\" is not a JSON object");
    }
    Map<ExtensionName, LockfileEntry> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonValue> e : obj.members().entrySet()) {
      if (!ExtensionName.isValid(e.getKey())) {
        throw new IllegalArgumentException("\"" + field + "\" holds an invalid extension name: " + e.getKey());
      }
      ExtensionName name = ExtensionName.of(e.getKey());
      out.put(name, LockfileCodec.entryFrom(name, e.getValue()));
    }
    return out;
  }

  private static String decodeUtf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("the file is not UTF-8 text", e);
    }
  }
}
