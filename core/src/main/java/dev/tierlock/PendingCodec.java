package dev.tierlock;

import dev.tierlock.spi.ObjectVersion;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The pending record's format: a {@link Commit} as compact JSON, bound to one lockfile of one
 * datastore. Version 4: {@code {"version":4,"lockfile":key,"datastore":identity,
 * "upserts":{name:entry},"removals":[name],"base":{name:entry},
 * "attempt":{"commit":id,"parentVersion":v,"parentLineage":ids},"priors":[{"commit":id,
 * "parentVersion":v,"parentLineage":ids,"upserts":{...},"removals":[...]}],"outcome":"unknown",
 * "reason":text,"notices":[text]}}, optional members omitted. Versions 1 to 3 (earlier Tierlock,
 * or the original tool's record without a base; none binds a lockfile or carries priors) are read;
 * a version-2 record of an interrupted change ({@code "incomplete":true}) reads as outcome unknown.
 * A {@code "deletions"} member (archives an earlier Tierlock deleted after a publish) is checked
 * and ignored: nothing is deleted in the commit path; a collection ({@link ArchiveCollector})
 * judges unpinned archives. A newer version is refused, never overwritten. Stateless.
 */
final class PendingCodec {

  /** The format version written. */
  static final int FORMAT_VERSION = 4;

  private final String lockfileKey;
  private final String datastore;

  /**
   * A codec of records bound to the lockfile at {@code lockfileKey} in the datastore {@code datastore}.
   *
   * @param lockfileKey the lockfile's key in the datastore
   * @param datastore the datastore's identity, as text
   */
  PendingCodec(String lockfileKey, String datastore) {
    this.lockfileKey = lockfileKey;
    this.datastore = datastore;
  }

  /** Returns {@code commit} as the record's bytes. */
  byte[] encode(Commit commit) {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("version", new JsonValue.Num(Integer.toString(FORMAT_VERSION)));
    members.put("lockfile", new JsonValue.Str(lockfileKey));
    members.put("datastore", new JsonValue.Str(datastore));
    members.putAll(deltaMembers(commit.delta()));
    Lockfile base = commit.base() == null ? Lockfile.EMPTY : commit.base().restrictedTo(commit.delta().names());
    Map<String, JsonValue> baseEntries = new LinkedHashMap<>();
    base.entries().forEach((name, entry) -> baseEntries.put(name.value(), entry.toJson()));
    members.put("base", new JsonValue.Obj(baseEntries));
    Commit.Attempt attempt = commit.attempt();
    if (attempt != null) {
      members.put("attempt", new JsonValue.Obj(attemptMembers(attempt)));
    }
    if (!commit.priors().isEmpty()) {
      List<JsonValue> priors = new ArrayList<>();
      for (Commit.Prior prior : commit.priors()) {
        Map<String, JsonValue> m = attemptMembers(prior.attempt());
        m.putAll(deltaMembers(prior.delta()));
        priors.add(new JsonValue.Obj(m));
      }
      members.put("priors", new JsonValue.Arr(priors));
    }
    if (commit.unknown() != null) {
      members.put("outcome", new JsonValue.Str("unknown"));
      members.put("reason", new JsonValue.Str(commit.unknown()));
    }
    if (!commit.notices().isEmpty()) {
      members.put("notices", strings(commit.notices()));
    }
    return (new JsonValue.Obj(members).toCompactString() + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads a record's bytes.
   *
   * @throws IllegalArgumentException if they are not a record of this lockfile and datastore, in
   *     a version this codec reads (the message says why)
   * @throws LockfileCodec.EntryProblem if an entry in it is invalid
   */
  Commit decode(byte[] bytes) throws LockfileCodec.EntryProblem {
    if (!(JsonValue.parse(utf8(bytes)) instanceof JsonValue.Obj obj)) {
      throw new IllegalArgumentException("the record is not a JSON object");
    }
    Map<String, JsonValue> m = obj.members();
    checkVersion(m);
    checkBinding(m);
    LockfileDelta delta = delta(m);
    checkDeletions(m);
    Lockfile base = m.containsKey("base") ? Lockfile.of(entries(m.get("base"), "base")) : null;
    Commit.Attempt attempt = m.get("attempt") == null ? null : attempt(m.get("attempt"));
    String unknown = null;
    if (m.get("outcome") instanceof JsonValue.Str outcome) {
      if (!outcome.value().equals("unknown")) {
        throw new IllegalArgumentException("\"outcome\" is \"" + outcome.value() + "\", not \"unknown\"");
      }
      unknown = m.get("reason") instanceof JsonValue.Str reason ? reason.value() : "its landing cannot be proven";
    } else if (m.containsKey("outcome")) {
      throw new IllegalArgumentException("\"outcome\" is not a string");
    }
    if (m.get("incomplete") == JsonValue.Literal.TRUE) {
      unknown = "an earlier Tierlock recorded it ahead of a change that was interrupted before it settled; what"
          + " the interrupted change did is not in the record";
      base = base == null ? null : base.restrictedTo(delta.names());
    }
    List<Commit.Prior> priors = priors(m);
    return new Commit(delta, base, attempt, unknown, strings(m.get("notices"), "notices"), priors);
  }

  /** Returns whether a record's bytes name the lockfile they were made for (version 4 and later). */
  static boolean namesItsLockfile(byte[] bytes) {
    try {
      return JsonValue.parse(utf8(bytes)) instanceof JsonValue.Obj obj && obj.members().containsKey("lockfile");
    } catch (IllegalArgumentException e) {
      return true;
    }
  }

  private static void checkVersion(Map<String, JsonValue> m) {
    if (!(m.get("version") instanceof JsonValue.Num n) || !n.literal().matches("[0-9]{1,9}")) {
      throw new IllegalArgumentException("the record has no format version");
    }
    int version = Integer.parseInt(n.literal());
    if (version > FORMAT_VERSION) {
      throw new IllegalArgumentException("the record has format version " + version + ", written by a newer Tierlock"
          + " (this one reads up to " + FORMAT_VERSION + "); publish it with that version, or discard it");
    }
    if (version < 1) {
      throw new IllegalArgumentException("the record has format version " + version);
    }
  }

  private void checkBinding(Map<String, JsonValue> m) {
    if (m.containsKey("lockfile") && !(m.get("lockfile") instanceof JsonValue.Str key && key.value().equals(lockfileKey))) {
      throw new IllegalArgumentException("the record was made for another lockfile (" + m.get("lockfile").toCompactString()
          + "), not " + lockfileKey);
    }
    if (m.containsKey("datastore") && !(m.get("datastore") instanceof JsonValue.Str store && store.value().equals(datastore))) {
      throw new IllegalArgumentException("the record was made for datastore " + m.get("datastore").toCompactString()
          + ", not " + datastore + " (this checkout's datastore now); run with that datastore to publish it, or"
          + " discard it");
    }
  }

  /** Checks an earlier Tierlock's {@code "deletions"}: archive paths, never acted on. */
  private static void checkDeletions(Map<String, JsonValue> m) {
    for (String p : strings(m.get("deletions"), "deletions")) {
      TierPath path = TierPath.of(p);
      if (path.archiveOf().isEmpty()) {
        throw new IllegalArgumentException("\"deletions\" holds " + p + ", which is not an extension archive (only"
            + " archives a change superseded were listed there)");
      }
    }
  }

  private static List<Commit.Prior> priors(Map<String, JsonValue> m) throws LockfileCodec.EntryProblem {
    List<Commit.Prior> priors = new ArrayList<>();
    if (!m.containsKey("priors")) {
      return priors;
    }
    if (!(m.get("priors") instanceof JsonValue.Arr arr)) {
      throw new IllegalArgumentException("\"priors\" is not an array");
    }
    for (JsonValue item : arr.items()) {
      if (!(item instanceof JsonValue.Obj prior)) {
        throw new IllegalArgumentException("\"priors\" holds something that is not an object");
      }
      priors.add(new Commit.Prior(attempt(prior), delta(prior.members())));
    }
    return priors;
  }

  private static Map<String, JsonValue> attemptMembers(Commit.Attempt attempt) {
    Map<String, JsonValue> a = new LinkedHashMap<>();
    a.put("commit", new JsonValue.Str(attempt.commitId()));
    if (attempt.parent() != null) {
      a.put("parentVersion", new JsonValue.Str(attempt.parent().version().value()));
      a.put("parentLineage", new JsonValue.Str(attempt.parent().lineageText()));
    }
    return a;
  }

  private static Map<String, JsonValue> deltaMembers(LockfileDelta delta) {
    Map<String, JsonValue> m = new LinkedHashMap<>();
    Map<String, JsonValue> upserts = new LinkedHashMap<>();
    delta.upserts().forEach((name, entry) -> upserts.put(name.value(), entry.toJson()));
    m.put("upserts", new JsonValue.Obj(upserts));
    m.put("removals", strings(delta.removals().stream().map(ExtensionName::value).toList()));
    return m;
  }

  private static LockfileDelta delta(Map<String, JsonValue> m) throws LockfileCodec.EntryProblem {
    Map<ExtensionName, LockfileEntry> upserts = entries(m.get("upserts"), "upserts");
    TreeSet<ExtensionName> removals = new TreeSet<>();
    for (String name : strings(m.get("removals"), "removals")) {
      if (!ExtensionName.isValid(name)) {
        throw new IllegalArgumentException("\"removals\" holds something that is not an extension name: " + name);
      }
      removals.add(ExtensionName.of(name));
    }
    return new LockfileDelta(upserts, removals);
  }

  private static Commit.Attempt attempt(JsonValue raw) {
    if (!(raw instanceof JsonValue.Obj obj) || !(obj.members().get("commit") instanceof JsonValue.Str commit)
        || !LockfileHead.isCommitId(commit.value())) {
      throw new IllegalArgumentException("\"attempt\" is not an object with a valid \"commit\"");
    }
    JsonValue version = obj.members().get("parentVersion");
    if (version == null) {
      return new Commit.Attempt(commit.value(), null);
    }
    if (!(version instanceof JsonValue.Str v) || v.value().isBlank()
        || !(obj.members().get("parentLineage") instanceof JsonValue.Str lineage)) {
      throw new IllegalArgumentException("\"attempt\" has a parent without a version and a lineage");
    }
    return new Commit.Attempt(commit.value(),
        new LockfileHead(ObjectVersion.of(v.value()), LockfileHead.parse(lineage.value())));
  }

  private static JsonValue.Arr strings(List<String> values) {
    return new JsonValue.Arr(values.stream().map(v -> (JsonValue) new JsonValue.Str(v)).toList());
  }

  private static List<String> strings(@Nullable JsonValue raw, String field) {
    if (raw == null) {
      return List.of();
    }
    if (!(raw instanceof JsonValue.Arr arr)) {
      throw new IllegalArgumentException("\"" + field + "\" is not an array");
    }
    List<String> out = new ArrayList<>();
    for (JsonValue item : arr.items()) {
      if (!(item instanceof JsonValue.Str s)) {
        throw new IllegalArgumentException("\"" + field + "\" holds something that is not a string: " + item.toCompactString());
      }
      out.add(s.value());
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

  private static String utf8(byte[] bytes) {
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
