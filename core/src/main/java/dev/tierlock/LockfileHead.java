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
 *
 * <p><b>Gaps.</b> On a store whose versions repeat without binding the metadata (an S3 ETag is a
 * digest of the bytes only), a write conditioned on a version it took from the checkout's cache
 * (one call, no read) lands on <em>any</em> object with those bytes: a peer may have written other
 * bytes and then these again since, with commits of its own in the metadata. The write cannot know,
 * so it says so: its history starts with {@value #GAP} ({@link #metadataOf}), meaning "built on
 * these ids' bytes; commits in between may be missing". Every id in a lineage still landed (a
 * history is only ever copied from a head that was read), so a lineage still proves "landed"; only
 * the claim that it lists <em>every</em> commit since an id stops at a gap ({@link
 * #completeAbove}). A reader without gaps stops its history at the marker (not a commit id), which
 * only ever makes it prove less. Immutable.
 *
 * @param version the object's version
 * @param lineage commit ids and gaps, newest first, this version's own id first (never a gap);
 *     empty when it carries none
 */
record LockfileHead(ObjectVersion version, List<String> lineage) {

  /** The metadata name that carries the lineage a commit was built on. */
  static final String HISTORY = "tierlock-commit-history";

  /** The lineage element that marks a gap: commits between its neighbours may be missing. */
  static final String GAP = "~";

  /** Room kept free in the store's metadata capacity for what a store adds or counts differently. */
  static final int METADATA_MARGIN = 64;

  /**
   * Validates and copies the lineage.
   *
   * @throws IllegalArgumentException if an id is not a commit id ({@link #isCommitId})
   */
  LockfileHead {
    for (int i = 0; i < lineage.size(); i++) {
      String id = lineage.get(i);
      if (!isCommitId(id) && !(i > 0 && GAP.equals(id))) {
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
   * Returns whether this lineage lists every commit that landed after commit {@code commitId}
   * (which it holds), up to this version: no gap lies between them.
   */
  boolean completeAbove(String commitId) {
    int at = lineage.indexOf(commitId);
    return at >= 0 && !lineage.subList(0, at).contains(GAP);
  }

  /**
   * Returns the metadata of commit {@code commitId} built on {@code parent}, as {@link
   * #metadataOf(String, LockfileHead, int, boolean)} with no gap.
   */
  static ObjectMetadata metadataOf(String commitId, @Nullable LockfileHead parent, int capacity) {
    return metadataOf(commitId, parent, capacity, false);
  }

  /**
   * Returns the metadata of commit {@code commitId} built on {@code parent}: the commit id and as
   * much of the parent's lineage as fits in {@code capacity} bytes of metadata (names and values,
   * less {@link #METADATA_MARGIN}), after a {@value #GAP} when {@code gap}.
   *
   * @param parent the version the write is conditioned on, or {@code null} when the lockfile is
   *     created
   * @param capacity the store's metadata capacity ({@link dev.tierlock.spi.Datastore#maxMetadataBytes()})
   * @param gap whether the write may land on an object with the parent's version but not its
   *     lineage (the parent came from the cache of a store whose versions repeat without binding
   *     the metadata): the history then starts with a gap
   * @throws IllegalArgumentException if {@code commitId} is not a commit id, or the capacity cannot
   *     hold even the commit id
   */
  static ObjectMetadata metadataOf(String commitId, @Nullable LockfileHead parent, int capacity, boolean gap) {
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
    List<String> inherited = new ArrayList<>();
    if (parent != null && !parent.lineage().isEmpty()) {
      if (gap) {
        inherited.add(GAP);
      }
      inherited.addAll(parent.lineage());
    }
    int kept = 0;
    for (String id : inherited) {
      int needed = (history.length() == 0 ? 0 : 1) + id.length();
      if (needed > budget) {
        break;
      }
      history.append(history.length() == 0 ? "" : " ").append(id);
      budget -= needed;
      kept = id.equals(GAP) ? kept : history.length();
    }
    // a gap with nothing after it says nothing
    history.setLength(kept);
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

  /**
   * Returns the lineage {@code text} holds (space-separated ids and gaps), up to its first element
   * that is neither; a gap repeated or at the end (with no id after it) is dropped.
   */
  static List<String> parse(String text) {
    List<String> ids = new ArrayList<>();
    for (String id : text.trim().split(" +")) {
      if (GAP.equals(id)) {
        if (ids.isEmpty() || !GAP.equals(ids.get(ids.size() - 1))) {
          ids.add(id);
        }
        continue;
      }
      if (!isCommitId(id)) {
        break;
      }
      ids.add(id);
    }
    if (!ids.isEmpty() && GAP.equals(ids.get(ids.size() - 1))) {
      ids.remove(ids.size() - 1);
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
