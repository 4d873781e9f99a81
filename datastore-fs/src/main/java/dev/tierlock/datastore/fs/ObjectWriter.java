package dev.tierlock.datastore.fs;

import dev.tierlock.datastore.fs.FileSystemFailures.Phase;
import dev.tierlock.datastore.fs.ObjectReader.ObjectState;
import dev.tierlock.datastore.fs.StagedChange.Staged;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The body of a write or delete: stages the change, takes the key's claim through a {@link
 * StagedChange}, reads the current object, checks the precondition against it, then publishes the
 * change by renames from (or into) the claim's directory, recording how far it got. The caller makes
 * the claim and translates failures.
 *
 * <p>A write stages the bytes first, before the claim is taken (learning their digest), without
 * forcing them. Under the claim it gives the staged file a modification time of its own, reads its
 * {@link FileIdentity}, attaches the one entry (digest, identity, metadata) to the staged file as
 * an extended attribute ({@link ExtendedAttributes}), forces the file once and publishes it by one
 * rename. Where the file system keeps no extended attributes, it forces the file without and
 * records the metadata in the sidecar, as earlier versions did:
 * under the claim it gives the staged file a modification time of its own and reads its {@link FileIdentity}
 * (file key and modification time, which the rename keeps), then stages the metadata sidecar with
 * two entries: the current file's (its digest, the identity it was read with, its metadata) and the
 * new file's (its digest, the staged file's identity, the new metadata). It moves the sidecar in,
 * and publishes by moving the bytes in. Each entry thus names the one file the datastore moved into
 * place with that metadata, and a reader pairs the old file or the new with its own; bytes another
 * writer puts at the path match neither (see {@link Sidecar}). When the bytes equal the current ones
 * no file is moved: the new metadata is bound to the current file, and moving the sidecar in is the
 * publish. A write with no metadata to a key that never had any skips the sidecar. A delete moves
 * the file into the claim's directory (the publish), then the sidecar, then removes directories it
 * left empty.
 *
 * <p>A change whose claim was taken over before it was published did not happen ({@link
 * KeyClaims.Lost}); it is reported as the precondition failure a new attempt would meet when the
 * object no longer satisfies the precondition (a stalled writer's version is stale), else as that
 * loss, for the caller to report busy. Stateless apart from its collaborators; thread-safe.
 */
final class ObjectWriter {

  /** The largest metadata entry attached as an extended attribute (ext4 keeps at most one block for them all). */
  static final int MAX_ATTRIBUTE_BYTES = 3072;

  private final RootLayout layout;
  private final ObjectReader reader;

  ObjectWriter(RootLayout layout, ObjectReader reader) {
    this.layout = layout;
    this.reader = reader;
  }

  /**
   * Refuses metadata over the datastore's capacity, before anything is locked or staged.
   *
   * @throws IllegalArgumentException if the names and values hold more than {@code maxBytes}
   */
  void refuseOversize(ObjectKey key, ObjectMetadata metadata, int maxBytes) {
    if (metadata.byteSize() > maxBytes) {
      throw new IllegalArgumentException("Cannot write object " + key + " at " + layout.describe()
          + ": its metadata holds " + metadata.byteSize() + " bytes of names and values, more than the " + maxBytes
          + " a filesystem datastore keeps; nothing changed");
    }
  }

  /**
   * Writes: stages the bytes, takes the claim, checks the precondition and publishes.
   *
   * @return the new version, or a precondition failure when nothing changed
   * @throws KeyClaims.Busy if another writer kept the key past the lock timeout; nothing changed
   * @throws KeyClaims.Lost if the claim was taken over before the write was published and the
   *     precondition still holds; nothing changed
   * @throws IOException if a step fails; {@code change} tells how far it got
   * @throws InterruptedException if interrupted while waiting for the claim; nothing changed
   * @throws IllegalArgumentException if the body yields another length than it declares
   */
  WriteResult write(ObjectKey key, Path target, ObjectBody body, WriteCondition condition,
      ObjectMetadata metadata, StagedChange change) throws IOException, InterruptedException, KeyClaims.Busy {
    MessageDigest digest = Digests.sha256();
    Staged bytes;
    try (InputStream in = new DigestInputStream(body.open(), digest)) {
      bytes = change.stageUnforced(in);
    }
    if (bytes.size() != body.size()) {
      throw new IllegalArgumentException("Cannot write object " + key + " at " + layout.describe()
          + ": the body declared " + body.size() + " bytes but yielded " + bytes.size() + "; nothing changed");
    }
    change.claim();
    @Nullable ObjectState current = reader.state(key, target).orElse(null);
    if (!holds(condition, current)) {
      return WriteResult.PreconditionFailed.INSTANCE;
    }
    try {
      return publish(key, target, bytes, Digests.hex(digest), current, metadata, change);
    } catch (KeyClaims.Lost lost) {
      if (!holds(condition, reader.state(key, target).orElse(null))) {
        return WriteResult.PreconditionFailed.INSTANCE;
      }
      throw lost;
    }
  }

  /**
   * Publishes staged (not yet forced) bytes under the claim, over {@code current} (null when there
   * is none): with their metadata attached to the staged file itself where the file system keeps
   * extended attributes (one flush, one rename), else through the sidecar.
   */
  private WriteResult publish(ObjectKey key, Path target, Staged bytes, String contentDigest,
      @Nullable ObjectState current, ObjectMetadata metadata, StagedChange change) throws IOException {
    Path sidecar = layout.sidecar(key);
    boolean hasSidecar = Files.exists(sidecar);
    if (metadata.values().isEmpty() && !hasSidecar) {
      // no metadata now or before: there is nothing to record, and no stale entry to replace
      change.seal(bytes, null);
      change.publish(bytes, target);
      return new WriteResult.Written(Digests.version(contentDigest, metadata));
    }
    @Nullable FileIdentity file = FileIdentity.stamp(change.path(bytes)).orElse(null);
    byte[] attribute = Sidecar.encode(key, List.of(new Sidecar.Entry(contentDigest, file, metadata)));
    if (attribute.length <= MAX_ATTRIBUTE_BYTES && change.seal(bytes, attribute)) {
      // the metadata travels with the file: the one rename publishes both
      change.publish(bytes, target);
      if (hasSidecar) {
        retireSidecar(sidecar, change);
      }
      return new WriteResult.Written(Digests.version(contentDigest, metadata));
    }
    if (attribute.length > MAX_ATTRIBUTE_BYTES) {
      change.seal(bytes, null);
    }
    return publishWithSidecar(key, target, bytes, contentDigest, current, metadata, change, file);
  }

  /**
   * Moves the sidecar an earlier version (or a file system without extended attributes) wrote out
   * of the way once the object carries its metadata itself: its entries name other files, and one
   * bound by digest alone must not pass for a later file's. Best effort: a sidecar left behind
   * names only files that are gone.
   */
  private static void retireSidecar(Path sidecar, StagedChange change) throws IOException {
    try {
      change.remove(sidecar);
    } catch (KeyClaims.Lost lost) {
      // taken over after the object was published: the sidecar stays, and names no current file
    }
  }

  /** Publishes forced staged bytes with the metadata in the key's sidecar (the form before extended attributes). */
  private WriteResult publishWithSidecar(ObjectKey key, Path target, Staged bytes, String contentDigest,
      @Nullable ObjectState current, ObjectMetadata metadata, StagedChange change, @Nullable FileIdentity staged)
      throws IOException {
    List<Sidecar.Entry> known = new ArrayList<>();
    boolean sameBytes = current != null && current.contentDigest().equals(contentDigest);
    if (current != null && !sameBytes) {
      known.add(new Sidecar.Entry(current.contentDigest(), current.file(), current.metadata()));
    }
    Path sidecar = layout.sidecar(key);
    // same bytes: the file stays and takes the new metadata; else the metadata goes with the temp
    // file, whose identity the move keeps
    @Nullable FileIdentity file = sameBytes ? current.file() : staged;
    known.add(new Sidecar.Entry(contentDigest, file, metadata));
    Staged record = change.stage(new ByteArrayInputStream(Sidecar.encode(key, known)));
    if (sameBytes) {
      // only the metadata changes: publishing the sidecar is the change
      change.discard(bytes);
      change.publish(record, sidecar);
    } else {
      // the sidecar learns the new content first, so readers pair it with the right metadata
      change.install(record, sidecar);
      change.publish(bytes, target);
    }
    return new WriteResult.Written(Digests.version(contentDigest, metadata));
  }

  /**
   * Deletes: takes the claim, checks the precondition and moves the object out.
   *
   * @return what happened
   * @throws KeyClaims.Busy if another writer kept the key past the lock timeout; nothing changed
   * @throws KeyClaims.Lost if the claim was taken over before the delete and the precondition still
   *     holds; nothing changed
   * @throws IOException if a step fails; {@code change} tells how far it got
   * @throws InterruptedException if interrupted while waiting for the claim; nothing changed
   */
  DeleteResult delete(ObjectKey key, Path target, WriteCondition condition, StagedChange change)
      throws IOException, InterruptedException, KeyClaims.Busy {
    change.claim();
    @Nullable ObjectState current = reader.state(key, target).orElse(null);
    if (current == null) {
      return DeleteResult.ABSENT;
    }
    if (!holds(condition, current)) {
      return DeleteResult.PRECONDITION_FAILED;
    }
    change.enter(Phase.COMMIT);
    try {
      if (!change.remove(target)) {
        return DeleteResult.ABSENT; // removed by something that does not take a claim
      }
    } catch (KeyClaims.Lost lost) {
      @Nullable ObjectState now = reader.state(key, target).orElse(null);
      if (now == null) {
        return DeleteResult.ABSENT;
      }
      if (!holds(condition, now)) {
        return DeleteResult.PRECONDITION_FAILED;
      }
      throw lost;
    }
    change.enter(Phase.DURABLE);
    change.forceDirectory(target.getParent());
    Path sidecar = layout.sidecar(key);
    if (Files.exists(sidecar)) { // only objects written where the metadata could not travel with the file have one
      try {
        change.remove(sidecar);
      } catch (KeyClaims.Lost lost) {
        // taken over after the object was deleted: the sidecar stays, and applies to nothing
      }
    }
    StagedChange.pruneEmpty(target.getParent(), layout.root());
    return DeleteResult.DELETED;
  }

  /** Returns whether the condition holds for the current object ({@code null} when there is none). */
  private static boolean holds(WriteCondition condition, @Nullable ObjectState current) {
    if (condition instanceof WriteCondition.MustNotExist) {
      return current == null;
    }
    if (condition instanceof WriteCondition.MustMatch mustMatch) {
      return current != null && current.version().equals(mustMatch.version());
    }
    return true;
  }
}
