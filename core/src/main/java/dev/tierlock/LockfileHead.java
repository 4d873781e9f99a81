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
 * version ({@value #HISTORY}, space-separated, at most {@value #MAX_HISTORY} ids within the 256
 * characters a metadata value may hold). Since a conditional write lands only on the version it was
 * conditioned on, the lineages form one chain, and a write whose answer was lost landed exactly when
 * its commit id is in the lineage of a later version. The lineage is a bounded
 * suffix of that chain; a version written without Tierlock metadata (by another tool) has an empty
 * lineage and starts a new chain. Immutable.
 *
 * @param version the object's version
 * @param lineage commit ids, newest first, this version's own first; empty when it carries none
 */
public record LockfileHead(ObjectVersion version, List<String> lineage) {

  /** The metadata name that carries the lineage a commit was built on. */
  public static final String HISTORY = "tierlock-commit-history";

  /** The most commit ids a history keeps. */
  public static final int MAX_HISTORY = 12;

  private static final int MAX_VALUE = 256;

  /**
   * Validates and copies the lineage.
   *
   * @param version the object's version
   * @param lineage commit ids, newest first, this version's own first; empty when it carries none
   * @throws IllegalArgumentException if an id is not a commit id ({@link #isCommitId})
   */
  public LockfileHead {
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
   *
   * @param object the lockfile object as read or stat'ed
   * @return its version and lineage
   */
  public static LockfileHead of(StoredObject object) {
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

  /**
   * Returns whether {@code text} is a valid commit id: letters, digits and {@code -}, 1 to 64 characters.
   *
   * @param text the text to check
   * @return whether it is a commit id
   */
  public static boolean isCommitId(String text) {
    return text.matches("[A-Za-z0-9-]{1,64}");
  }

  /** {@return the id of the commit that wrote this version, or empty when it carries none} */
  public Optional<String> commitId() {
    return lineage.isEmpty() ? Optional.empty() : Optional.of(lineage.get(0));
  }

  /**
   * Returns whether the commit {@code commitId} is this version or one it was built on (as far as the lineage reaches).
   *
   * @param commitId the commit id to look for
   * @return whether the lineage includes it
   */
  public boolean includes(String commitId) {
    return lineage.contains(commitId);
  }

  /**
   * Returns the metadata of commit {@code commitId} built on {@code parent}: the commit id and, when
   * the parent carries a lineage, as much of it as fits as the history.
   *
   * @param parent the version the write is conditioned on, or {@code null} when the lockfile is
   *     created
   * @throws IllegalArgumentException if {@code commitId} is not a commit id
   */
  static ObjectMetadata metadataOf(String commitId, @Nullable LockfileHead parent) {
    if (!isCommitId(commitId)) {
      throw new IllegalArgumentException("Cannot use commit id \"" + commitId + "\": letters, digits and -, 1 to 64 characters");
    }
    StringBuilder history = new StringBuilder();
    int kept = 0;
    for (String id : parent == null ? List.<String>of() : parent.lineage()) {
      int length = history.length() + (kept == 0 ? 0 : 1) + id.length();
      if (kept == MAX_HISTORY || length > MAX_VALUE) {
        break;
      }
      history.append(kept == 0 ? "" : " ").append(id);
      kept++;
    }
    if (kept == 0) {
      return ObjectMetadata.of(ObjectMetadata.COMMIT_ID, commitId);
    }
    return new ObjectMetadata(Map.of(ObjectMetadata.COMMIT_ID, commitId, HISTORY, history.toString()));
  }

  /** Returns the lineage {@code text} holds (space-separated ids), up to its first invalid id. */
  static List<String> parse(String text) {
    List<String> ids = new ArrayList<>();
    for (String id : text.trim().split(" +")) {
      if (!isCommitId(id) || ids.size() == MAX_HISTORY) {
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
