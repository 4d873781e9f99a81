package dev.tierlock.archive;

import java.nio.file.Path;

/**
 * A local archive file whose SHA-256 was verified against its key by the read that returned it.
 * The file lives in the store's cache: read, copy or extract it, never modify or move it (the cache
 * owns it; a later read re-verifies it). Immutable.
 *
 * @param key the archive's key
 * @param path the verified file in the local cache
 * @param size the file's length in bytes
 * @param origin where the bytes came from on this read
 */
public record ArchiveFile(ExtensionArchiveKey key, Path path, long size, Origin origin) {

  /** Where a read found the bytes. */
  public enum Origin {
    /** The local cache already held verified bytes; no datastore call was made. */
    CACHE,
    /** The bytes were downloaded from the datastore, verified, then cached. */
    DATASTORE
  }

  /**
   * Validates the size.
   *
   * @param key the archive's key
   * @param path the verified file in the local cache
   * @param size the file's length in bytes
   * @param origin where the bytes came from on this read
   * @throws IllegalArgumentException if {@code size} is negative
   */
  public ArchiveFile {
    if (size < 0) {
      throw new IllegalArgumentException("Cannot describe archive file " + path + ": negative size " + size);
    }
  }
}
