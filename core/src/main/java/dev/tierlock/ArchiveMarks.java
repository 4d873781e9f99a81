package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The marks that tell a collection when the pinning of an extension archive last changed: one
 * small object per archive, {@code [<ns>/].tierlock-archives/<name>/<sha256>}, rewritten by every
 * lockfile write that pins the archive anew under a name or unpins it, before that write is sent
 * and after the fetch it is conditioned on ({@link #touch}). Each write of a mark carries a fresh
 * id, so it gets a new version on every store, those whose versions are digests of the bytes
 * included; and its store-assigned time ({@link StoredObject#modified()}) is then at or after the
 * publish of every lockfile version that pinned the archive before that write. A collection
 * ({@link ArchiveCollector}) takes an archive only when its mark, if any, is older than the
 * retention window, and after its delete reads the mark again: a mark that changed meanwhile means
 * a writer is pinning the archive, and the collection stores it back. Thread-safe (stateless apart
 * from its configuration).
 */
final class ArchiveMarks {

  /** The prefix of every mark, under the namespace's root. */
  static final String PREFIX = ".tierlock-archives/";

  private final Datastore datastore;
  private final Namespace namespace;

  ArchiveMarks(Datastore datastore, Namespace namespace) {
    this.datastore = datastore;
    this.namespace = namespace;
  }

  /**
   * Returns the archives whose pinning a write from {@code before} to {@code after} changes, for
   * the names of {@code names}: those {@code after} pins under a name that {@code before} did not
   * pin under it, and those {@code before} pinned that {@code after} does not.
   */
  static List<TierPath> changed(Lockfile before, Lockfile after, Set<ExtensionName> names) {
    List<TierPath> out = new ArrayList<>();
    for (ExtensionName name : names) {
      Optional<String> was = before.entry(name).flatMap(LockfileEntry::checksum);
      Optional<String> now = after.entry(name).flatMap(LockfileEntry::checksum);
      if (!was.equals(now)) {
        now.ifPresent(sha -> out.add(archive(name, sha)));
        was.ifPresent(sha -> out.add(archive(name, sha)));
      }
    }
    return List.copyOf(out);
  }

  /** Returns the tier path of the archive of {@code name} with SHA-256 {@code sha256}. */
  static TierPath archive(ExtensionName name, String sha256) {
    return TierPath.of(TierPath.ARCHIVES + "/" + name.value() + "/" + sha256 + TierPath.ARCHIVE_SUFFIX);
  }

  /** Returns the key of the mark of {@code archive} (an extension archive's tier path). */
  ObjectKey key(TierPath archive) {
    return namespace.rootKey(PREFIX + archive.archiveOf().orElseThrow().value() + "/"
        + archive.archiveSha256().orElseThrow());
  }

  /**
   * Rewrites the mark of each archive of {@code archives}, each with a fresh id from {@code ids}.
   *
   * @throws dev.tierlock.spi.DatastoreException if the store fails (the lockfile write is then not sent)
   */
  void touch(List<TierPath> archives, java.util.function.Supplier<String> ids) {
    for (TierPath archive : archives) {
      Map<String, JsonValue> members = new LinkedHashMap<>();
      members.put("archive", new JsonValue.Str(archive.value()));
      members.put("id", new JsonValue.Str(ids.get()));
      byte[] bytes = (new JsonValue.Obj(members).toCompactString() + "\n").getBytes(StandardCharsets.UTF_8);
      datastore.write(key(archive), ObjectBody.of(bytes), WriteCondition.none(), ObjectMetadata.EMPTY);
    }
  }

  /** {@return the mark of {@code archive} as the store knows it, or empty when there is none} */
  Optional<StoredObject> stat(TierPath archive) {
    return datastore.stat(key(archive));
  }
}
