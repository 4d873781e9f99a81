package dev.tierlock.spi;

import java.nio.file.Path;

/**
 * Optional capability of a datastore whose objects are files that every checkout reaches directly
 * (a shared filesystem). Such a datastore is used in direct mode: the shared lockfile is edited in
 * place under OS file locks and atomic renames, with no cache, hydrate or publish.
 */
public interface DirectAccess {

  /** Returns the file that holds the object at {@code key} (which may not exist yet). */
  Path pathOf(ObjectKey key);

  /**
   * Returns a directory on the same filesystem, outside every object key, for the lock files that
   * guard direct edits; created if missing.
   */
  Path lockDirectory();
}
