package dev.tierlock;

import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One version of the shared lockfile with the commit lineage its metadata carries: the id of the
 * commit that wrote it, then the ids of the commits it was built on, newest first.
 *
 * <p>Every lockfile write of Tierlock is conditional on the version it was built on and carries, in
 * object metadata, a fresh commit id ({@value ObjectMetadata#COMMIT_ID}) and the lineage of that
 * version ({@value #HISTORY}, space-separated ids, as many as the store's metadata capacity allows:
 * about 115 on S3's 2 KiB, 480 on GCS's 8 KiB with 16-character ids). Since a conditional write
 * lands only on the version it was conditioned on, the lineages form one chain, so a write whose
 * answer was lost is judged from a later version's lineage ({@link Landing}). A version written
 * without Tierlock metadata (by another tool) has an empty lineage and starts a new chain.
 * Immutable.
 *
 * @param version the object's version
 * @param lineage commit ids, newest first, this version's own first; empty when it carries none
 */
record LockfileHead(ObjectVersion version, List<String> lineage) {

  /** The metadata name that carries the lineage a commit was built on. */
  static final String HISTORY = "tierlock-commit-history";

  /** Room kept free in the store's metadata capacity for what a store adds or counts differently. */
  static final int METADATA_MARGIN = 64;

  /**
   * Validates and copies the lineage.
   *
   * @throws IllegalArgumentException if an id is not a commit id ({@link #isCommitId})
   */
  LockfileHead {
    for (String id : lineage) {
      if (!isCommitId(id)) {
        throw new IllegalArgumentException("Cannot use commit id \"" + id + "\": letters, digits and -, 1 to 64 characters");
      }
    }
    lineage = List.copyOf(lineage);
  }

  /**
   * Returns the head an object's metadata describes: its commit id, then the history it carries. A
   * missing or invalid commit id gives an empty lineage; the history is kept up to its first invalid
   * id.
   */
  static LockfileHead of(StoredObject object) {
    return of(object.version(), object.metadata());
  }

  /** Returns the head of {@code version} whose metadata is {@code metadata}, as {@link #of(StoredObject)} does. */
  static LockfileHead of(ObjectVersion version, ObjectMetadata metadata) {
    Optional<String> own = metadata.get(ObjectMetadata.COMMIT_ID).filter(LockfileHead::isCommitId);
    if (own.isEmpty()) {
      return new LockfileHead(version, List.of());
    }
    List<String> lineage = new ArrayList<>();
    lineage.add(own.get());
    lineage.addAll(parse(metadata.get(HISTORY).orElse("")));
    return new LockfileHead(version, lineage);
  }

  /** Returns whether {@code text} is a valid commit id: letters, digits and {@code -}, 1 to 64 characters. */
  static boolean isCommitId(String text) {
    if (text.isEmpty() || text.length() > 64) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-')) {
        return false;
      }
    }
    return true;
  }

  /** Returns the id of the commit that wrote this version, or empty when it carries none. */
  Optional<String> commitId() {
    return lineage.isEmpty() ? Optional.empty() : Optional.of(lineage.get(0));
  }

  /** Returns whether the commit {@code commitId} is this version or one it was built on (as far as the lineage reaches). */
  boolean includes(String commitId) {
    return lineage.contains(commitId);
  }

  /**
   * Returns the metadata of commit {@code commitId} built on {@code parent}: the commit id and as
   * much of the parent's lineage as fits in {@code capacity} bytes of metadata (names and values,
   * less {@link #METADATA_MARGIN}).
   *
   * @param parent the version the write is conditioned on, or {@code null} when the lockfile is
   *     created
   * @param capacity the store's metadata capacity ({@link dev.tierlock.spi.Datastore#maxMetadataBytes()})
   * @throws IllegalArgumentException if {@code commitId} is not a commit id, or the capacity cannot
   *     hold even the commit id
   */
  static ObjectMetadata metadataOf(String commitId, @Nullable LockfileHead parent, int capacity) {
    if (!isCommitId(commitId)) {
      throw new IllegalArgumentException("Cannot use commit id \"" + commitId + "\": letters, digits and -, 1 to 64 characters");
    }
    int budget = Math.min(capacity, ObjectMetadata.MAX_BYTES) - METADATA_MARGIN
        - ObjectMetadata.COMMIT_ID.length() - commitId.length();
    if (budget < 0) {
      throw new IllegalArgumentException("Cannot write commit " + commitId + ": the store's metadata capacity of "
          + capacity + " bytes cannot hold its id");
    }
    StringBuilder history = new StringBuilder();
    budget -= HISTORY.length();
    for (String id : parent == null ? List.<String>of() : parent.lineage()) {
      int needed = (history.length() == 0 ? 0 : 1) + id.length();
      if (needed > budget) {
        break;
      }
      history.append(history.length() == 0 ? "" : " ").append(id);
      budget -= needed;
    }
    if (history.length() == 0) {
      return ObjectMetadata.of(ObjectMetadata.COMMIT_ID, commitId);
    }
    return new ObjectMetadata(Map.of(ObjectMetadata.COMMIT_ID, commitId, HISTORY, history.toString()));
  }

  /** Returns whether {@code capacity} bytes of metadata hold commit id {@code commitId} ({@link #metadataOf} succeeds). */
  static boolean holdsCommitId(int capacity, String commitId) {
    return Math.min(capacity, ObjectMetadata.MAX_BYTES) - METADATA_MARGIN - ObjectMetadata.COMMIT_ID.length()
        - commitId.length() >= 0;
  }

  /**
   * Returns how many commit ids of {@code idLength} characters a lineage keeps in {@code capacity}
   * bytes of metadata: the write's own id and its history.
   */
  static int lineageLength(int capacity, int idLength) {
    int budget = Math.min(capacity, ObjectMetadata.MAX_BYTES) - METADATA_MARGIN - ObjectMetadata.COMMIT_ID.length()
        - idLength - HISTORY.length();
    return budget < idLength ? 1 : 1 + 1 + (budget - idLength) / (idLength + 1);
  }

  /** Returns the lineage {@code text} holds (space-separated ids), up to its first invalid id. */
  static List<String> parse(String text) {
    List<String> ids = new ArrayList<>();
    for (String id : text.trim().split(" +")) {
      if (!isCommitId(id)) {
        break;
      }
      ids.add(id);
    }
    return ids;
  }

  /** Returns the lineage as one space-separated text. */
  String lineageText() {
    return String.join(" ", lineage);
  }

  @Override
  public String toString() {
    return "LockfileHead[" + version.value() + (lineage.isEmpty() ? "" : ", commit " + lineage.get(0)) + "]";
  }
}
