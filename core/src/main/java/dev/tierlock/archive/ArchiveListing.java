package dev.tierlock.archive;

import java.util.List;

/**
 * What one pass over an archive accepted. Immutable.
 *
 * @param entries the accepted entries in archive order (AppleDouble {@code ._*} files and the root
 *     directory entry left out)
 * @param skipped how many AppleDouble {@code ._*} files were skipped
 * @param decompressedBytes how many bytes gzip yielded in the pass (tar headers and padding
 *     included)
 */
public record ArchiveListing(List<ArchiveEntry> entries, int skipped, long decompressedBytes) {

  /**
   * Copies the entry list.
   *
   * @param entries the accepted entries in archive order (AppleDouble {@code ._*} files and the
   *     root directory entry left out)
   * @param skipped how many AppleDouble {@code ._*} files were skipped
   * @param decompressedBytes how many bytes gzip yielded in the pass (tar headers and padding
   *     included)
   * @throws IllegalArgumentException if a count is negative
   */
  public ArchiveListing {
    entries = List.copyOf(entries);
    if (skipped < 0 || decompressedBytes < 0) {
      throw new IllegalArgumentException("Cannot describe an archive listing with negative counts");
    }
  }

  /** {@return the paths of the accepted entries, in archive order} */
  public List<String> paths() {
    return entries.stream().map(ArchiveEntry::path).toList();
  }
}
