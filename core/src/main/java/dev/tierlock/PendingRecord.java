package dev.tierlock;

import dev.tierlock.internal.AtomicFileWriter;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The checkout's durable record of a change not known to be in the shared lockfile ({@value
 * #FILE_NAME} in the state directory; never synced). Written atomically and forced to disk before
 * every lockfile write, so a process that dies at any point leaves what the next run needs: the
 * change, the entries it was made on (so a replay never reverts a peer), the archives to delete
 * once it is published, the write in flight (its commit id and parent version, judged by the
 * lineage), and, once its landing cannot be proven, that verdict.
 *
 * <p>The record is bound to one lockfile of one datastore: it names both, and a record that names
 * another lockfile or datastore (a checkout pointed elsewhere since) is unreadable here, never
 * published into the wrong lockfile. Its deletions may name only extension archives.
 *
 * <p>Format version 4, compact JSON: {@code {"version":4,"lockfile":key,"datastore":identity,
 * "upserts":{name:entry},"removals":[name],
 * "base":{name:entry},"deletions":[path],"attempt":{"commit":id,"parentVersion":v,"parentLineage":
 * ids},"priors":[{"commit":id,"parentVersion":v,"parentLineage":ids,"upserts":{...},"removals":[...]}],
 * "outcome":"unknown","reason":text,"notices":[text]}}, optional members omitted. Versions 1 to 3 (earlier
 * Tierlock, or the original tool's record without a base; none binds a lockfile or carries priors)
 * are read; a version-2 record of an
 * interrupted change ({@code "incomplete":true}) reads as outcome unknown. A newer version is
 * refused, never overwritten. Not thread-safe: callers hold the checkout's transaction lock.
 */
final class PendingRecord {

  /** The record's file name in the state directory. */
  static final String FILE_NAME = "managed-config-lockfile-unpublished";

  /** The format version written. */
  static final int FORMAT_VERSION = 4;

  private final Path path;
  private final ObjectKey lockfileKey;
  private final String datastore;
  private final @Nullable PendingRecord unbound;

  /**
   * A record of the lockfile {@code namespace} names in {@code datastore}: {@code <state>/}{@value
   * #FILE_NAME} without a namespace, {@code <state>/namespaces/<ns>/}{@value #FILE_NAME} with one,
   * so a checkout used with two namespaces keeps one record for each.
   */
  PendingRecord(Path stateDirectory, Namespace namespace, DatastoreIdentity datastore) {
    Path state = stateDirectory.toAbsolutePath().normalize();
    this.path = namespace.name().map(n -> state.resolve("namespaces").resolve(n)).orElse(state).resolve(FILE_NAME);
    this.lockfileKey = namespace.key(TierPath.LOCKFILE);
    this.datastore = datastore.toString();
    this.unbound = namespace.name().isPresent() ? new PendingRecord(state.resolve(FILE_NAME), datastore) : null;
  }

  /** The record at {@code file} as a checkout without a namespace reads it. */
  private PendingRecord(Path file, DatastoreIdentity datastore) {
    this.path = file;
    this.lockfileKey = Namespace.NONE.key(TierPath.LOCKFILE);
    this.datastore = datastore.toString();
    this.unbound = null;
  }

  /**
   * Returns, for a record of a namespace, what an earlier Tierlock left at the state directory's
   * root without naming its namespace (before records moved to {@code namespaces/<ns>/}): this
   * record cannot tell whose it is, so it never publishes it, but every run says it is there.
   *
   * @return a notice naming the change and the file, or empty
   */
  Optional<String> unboundNotice() {
    if (unbound == null || !Files.exists(unbound.path)) {
      return Optional.empty();
    }
    Stored stored = unbound.read();
    if (!(stored instanceof Change change) || namesItsLockfile(unbound.path)) {
      return Optional.empty();
    }
    return Optional.of("An earlier Tierlock left a pending change (" + PendingChange.describe(change.delta()) + ") in "
        + unbound.path + " without naming its namespace; runs with a namespace leave it alone, and a run without one"
        + " publishes it into the lockfile without a namespace; if it was made for this namespace, make it again here"
        + " and discard it there (tierlock pending discard, without --namespace)");
  }

  /** A lockfile write that was sent, or about to be: its commit id and the version it was conditioned on. */
  record Attempt(String commitId, @Nullable LockfileHead parent) {}

  /**
   * An earlier write of this change that went unanswered and may still land: it was conditioned on
   * the same version as the change's base, which was still current when last seen. At most one of
   * the writes conditioned on one version lands; if this one does, it carried {@code delta}.
   *
   * @param attempt its commit id and parent
   * @param delta what it carried, made on that parent
   */
  record Prior(Attempt attempt, LockfileDelta delta) {}

  /** What the file holds. */
  sealed interface Stored {}

  /** No record: nothing is pending. */
  enum None implements Stored { INSTANCE }

  /**
   * A readable record.
   *
   * @param delta the change not known to be published
   * @param base the entries of the shared lockfile it was made on, for its names ({@code null}
   *     when an older record did not say: then nothing that differs may be re-applied)
   * @param deletions tier paths to delete once it is published
   * @param attempt the write in flight, if one may have landed
   * @param unknown why its landing cannot be proven, once that is the verdict
   * @param notices what a run that wrote this record dropped (a name another checkout changed
   *     since), for the next run to report should that run die before it could tell its caller
   * @param priors earlier writes of this change that may still land, all conditioned on the
   *     version it was made on
   */
  record Change(LockfileDelta delta, @Nullable Lockfile base, List<TierPath> deletions, @Nullable Attempt attempt,
      @Nullable String unknown, List<String> notices, List<Prior> priors) implements Stored {
    Change {
      deletions = List.copyOf(deletions);
      notices = List.copyOf(notices);
      priors = List.copyOf(priors);
    }

    /** A change with no notices and no earlier writes in doubt. */
    Change(LockfileDelta delta, @Nullable Lockfile base, List<TierPath> deletions, @Nullable Attempt attempt,
        @Nullable String unknown) {
      this(delta, base, deletions, attempt, unknown, List.of(), List.of());
    }

    /** Returns this change with the write in flight set (or cleared). */
    Change withAttempt(@Nullable Attempt value) {
      return new Change(delta, base, deletions, value, unknown, notices, priors);
    }

    /** Returns this change judged unprovable for {@code reason}. */
    Change unknown(String reason) {
      return new Change(delta, base, deletions, attempt, reason, notices, priors);
    }

    /** Returns this change without its notices. */
    Change withoutNotices() {
      return new Change(delta, base, deletions, attempt, unknown, List.of(), priors);
    }

    /** Returns the commit ids of every write of this change that may have landed, the latest first. */
    List<String> commitIds() {
      List<String> ids = new ArrayList<>();
      if (attempt != null) {
        ids.add(attempt.commitId());
      }
      for (int i = priors.size() - 1; i >= 0; i--) {
        ids.add(priors.get(i).attempt().commitId());
      }
      return ids;
    }
  }

  /**
   * A record that cannot be read.
   *
   * @param reason why
   */
  record Unreadable(String reason) implements Stored {}

  private static boolean namesItsLockfile(Path file) {
    try {
      return JsonValue.parse(utf8(Files.readAllBytes(file))) instanceof JsonValue.Obj obj
          && obj.members().containsKey("lockfile");
    } catch (IOException | IllegalArgumentException e) {
      return true;
    }
  }

  /** Returns the record's file. */
  Path path() {
    return path;
  }

  /** Reads the record; never throws for what the file holds. */
  Stored read() {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(path)) {
      bytes = in.readNBytes(2 * LockfileCodec.MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      return None.INSTANCE;
    } catch (IOException e) {
      return new Unreadable("the file cannot be read: " + e.getMessage());
    }
    if (bytes.length > 2 * LockfileCodec.MAX_BYTES) {
      return new Unreadable("the file is larger than " + 2 * LockfileCodec.MAX_BYTES + " bytes");
    }
    try {
      return parse(utf8(bytes));
    } catch (IllegalArgumentException | LockfileCodec.EntryProblem e) {
      return new Unreadable(e.getMessage());
    }
  }

  /** Returns how a stored record looks to callers, or null when there is none. */
  @Nullable PendingChange view(Stored stored) {
    if (stored instanceof Change change) {
      List<String> ids = change.commitIds();
      PendingChange.State state = change.unknown() != null ? PendingChange.State.OUTCOME_UNKNOWN
          : !ids.isEmpty() ? PendingChange.State.IN_FLIGHT : PendingChange.State.UNPUBLISHED;
      return new PendingChange(state, change.delta(), ids.isEmpty() ? null : ids.get(0), change.unknown(), path);
    }
    if (stored instanceof Unreadable unreadable) {
      return new PendingChange(PendingChange.State.UNREADABLE, LockfileDelta.EMPTY, null, unreadable.reason(), path);
    }
    return null;
  }

  /**
   * Writes {@code change} durably (temp file, fsync, atomic rename, fsync of the directory).
   *
   * @throws LocalFileException if it cannot be written; the old record is then unchanged
   */
  void write(Change change) {
    Map<String, JsonValue> members = new LinkedHashMap<>();
    members.put("version", new JsonValue.Num(Integer.toString(FORMAT_VERSION)));
    members.put("lockfile", new JsonValue.Str(lockfileKey.value()));
    members.put("datastore", new JsonValue.Str(datastore));
    members.putAll(deltaMembers(change.delta()));
    Lockfile base = change.base() == null ? Lockfile.EMPTY : change.base().restrictedTo(change.delta().names());
    Map<String, JsonValue> baseEntries = new LinkedHashMap<>();
    base.entries().forEach((name, entry) -> baseEntries.put(name.value(), entry.toJson()));
    members.put("base", new JsonValue.Obj(baseEntries));
    if (!change.deletions().isEmpty()) {
      members.put("deletions", strings(change.deletions().stream().map(TierPath::value).toList()));
    }
    Attempt attempt = change.attempt();
    if (attempt != null) {
      members.put("attempt", new JsonValue.Obj(attemptMembers(attempt)));
    }
    if (!change.priors().isEmpty()) {
      List<JsonValue> priors = new ArrayList<>();
      for (Prior prior : change.priors()) {
        Map<String, JsonValue> m = attemptMembers(prior.attempt());
        m.putAll(deltaMembers(prior.delta()));
        priors.add(new JsonValue.Obj(m));
      }
      members.put("priors", new JsonValue.Arr(priors));
    }
    if (change.unknown() != null) {
      members.put("outcome", new JsonValue.Str("unknown"));
      members.put("reason", new JsonValue.Str(change.unknown()));
    }
    if (!change.notices().isEmpty()) {
      members.put("notices", strings(change.notices()));
    }
    byte[] bytes = (new JsonValue.Obj(members).toCompactString() + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      AtomicFileWriter.write(path, bytes);
    } catch (IOException e) {
      throw new LocalFileException("Cannot write pending-change record " + path + ": " + e.getMessage(), e);
    }
  }

  private static Map<String, JsonValue> attemptMembers(Attempt attempt) {
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

  /**
   * Deletes the record durably (the directory is forced to disk): a record the caller discarded
   * never comes back.
   *
   * @throws LocalFileException if it cannot be deleted
   */
  void clear() {
    try {
      if (Files.deleteIfExists(path)) {
        AtomicFileWriter.forceDirectory(path.getParent());
      }
    } catch (IOException e) {
      throw new LocalFileException("Cannot delete pending-change record " + path + ": " + e.getMessage(), e);
    }
  }

  /**
   * Deletes a record whose change is settled (published, or already in the shared lockfile),
   * without forcing the directory: a record a power loss brings back is settled again by the next
   * run, by the lineage or by its replay finding nothing left, at no cost but a read.
   *
   * @throws LocalFileException if it cannot be deleted
   */
  void clearSettled() {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new LocalFileException("Cannot delete pending-change record " + path + ": " + e.getMessage(), e);
    }
  }

  private Stored parse(String text) throws LockfileCodec.EntryProblem {
    if (!(JsonValue.parse(text) instanceof JsonValue.Obj obj)) {
      throw new IllegalArgumentException("the record is not a JSON object");
    }
    Map<String, JsonValue> m = obj.members();
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
    if (m.containsKey("lockfile") && !(m.get("lockfile") instanceof JsonValue.Str key && key.value().equals(lockfileKey.value()))) {
      throw new IllegalArgumentException("the record was made for another lockfile (" + m.get("lockfile").toCompactString()
          + "), not " + lockfileKey);
    }
    if (m.containsKey("datastore") && !(m.get("datastore") instanceof JsonValue.Str store && store.value().equals(datastore))) {
      throw new IllegalArgumentException("the record was made for datastore " + m.get("datastore").toCompactString()
          + ", not " + datastore + " (this checkout's datastore now); run with that datastore to publish it, or"
          + " discard it");
    }
    LockfileDelta delta = delta(m);
    List<TierPath> deletions = new ArrayList<>();
    for (String p : strings(m.get("deletions"), "deletions")) {
      TierPath path = TierPath.of(p);
      if (ExtensionArchiveKey.fromTierPath(path).isEmpty()) {
        throw new IllegalArgumentException("\"deletions\" holds " + p + ", which is not an extension archive (only"
            + " archives a change superseded are deleted after it is published)");
      }
      deletions.add(path);
    }
    Lockfile base = m.containsKey("base") ? Lockfile.of(entries(m.get("base"), "base")) : null;
    Attempt attempt = m.get("attempt") == null ? null : attempt(m.get("attempt"));
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
    List<Prior> priors = new ArrayList<>();
    if (m.containsKey("priors")) {
      if (!(m.get("priors") instanceof JsonValue.Arr arr)) {
        throw new IllegalArgumentException("\"priors\" is not an array");
      }
      for (JsonValue item : arr.items()) {
        if (!(item instanceof JsonValue.Obj prior)) {
          throw new IllegalArgumentException("\"priors\" holds something that is not an object");
        }
        priors.add(new Prior(attempt(prior), delta(prior.members())));
      }
    }
    return new Change(delta, base, deletions, attempt, unknown, strings(m.get("notices"), "notices"), priors);
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

  private static Attempt attempt(JsonValue raw) {
    if (!(raw instanceof JsonValue.Obj obj) || !(obj.members().get("commit") instanceof JsonValue.Str commit)
        || !LockfileHead.isCommitId(commit.value())) {
      throw new IllegalArgumentException("\"attempt\" is not an object with a valid \"commit\"");
    }
    JsonValue version = obj.members().get("parentVersion");
    if (version == null) {
      return new Attempt(commit.value(), null);
    }
    if (!(version instanceof JsonValue.Str v) || v.value().isBlank()
        || !(obj.members().get("parentLineage") instanceof JsonValue.Str lineage)) {
      throw new IllegalArgumentException("\"attempt\" has a parent without a version and a lineage");
    }
    return new Attempt(commit.value(), new LockfileHead(ObjectVersion.of(v.value()), LockfileHead.parse(lineage.value())));
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
