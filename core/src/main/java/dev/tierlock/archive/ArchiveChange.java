package dev.tierlock.archive;

import dev.tierlock.TierPath;
import java.util.List;

/**
 * What a store or delete did to the tier. Immutable.
 *
 * @param key the archive's key
 * @param outcome what happened
 * @param paths the tier paths that now hold these bytes (a store) or no longer hold them (a
 *     delete that removed the object); empty when the tier did not change and holds nothing for the
 *     key. The caller publishes or records exactly these paths, never a walk of the cache.
 */
public record ArchiveChange(ExtensionArchiveKey key, Outcome outcome, List<TierPath> paths) {

  /** What happened to the object under the archive's key. */
  public enum Outcome {
    /** A store created the object (create-only write). */
    CREATED,
    /**
     * A store found an object of the same size already there (written by a peer or by this store
     * earlier, possibly by a write of this call whose answer was lost); nothing was written.
     */
    ALREADY_PRESENT,
    /**
     * A store found an object of a different size under the key (so not these bytes) and replaced
     * it by a write conditional on that object's version.
     */
    REPLACED,
    /** A delete removed the object (conditional on the version it had just seen). */
    DELETED,
    /** A delete found no object; nothing changed. */
    ABSENT,
    /**
     * A delete found the object rewritten between its stat and its delete (a peer stored the
     * archive again) and left it in place.
     */
    KEPT
  }

  /**
   * Copies the path list.
   *
   * @param key the archive's key
   * @param outcome what happened
   * @param paths the tier paths that now hold these bytes (a store) or no longer hold them (a
   *     delete that removed the object); empty when the tier did not change and holds nothing for
   *     the key. The caller publishes or records exactly these paths, never a walk of the cache.
   */
  public ArchiveChange {
    paths = List.copyOf(paths);
  }
}
