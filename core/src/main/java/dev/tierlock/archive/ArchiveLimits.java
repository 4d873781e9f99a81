package dev.tierlock.archive;

/**
 * The caps every reader and writer of archives applies, so that they cannot drift apart: the same
 * values bound a store's upload, a store's download, a listing and an extraction. Immutable.
 *
 * <p>The decompressed cap counts the bytes gzip actually yields in one pass (list or extract, each
 * on its own), never the sizes tar headers claim. The entry cap counts every tar entry (skipped
 * ones too) and every directory the entries imply without listing it, so that neither the entry
 * list nor the extractor's model of the tree grows past it.
 *
 * @param maxCompressedBytes the largest archive file, in bytes (default {@value
 *     #DEFAULT_MAX_COMPRESSED_BYTES}, 50 MiB)
 * @param maxDecompressedBytes the most bytes one pass may decompress (default {@value
 *     #DEFAULT_MAX_DECOMPRESSED_BYTES}, 500 MiB)
 * @param maxEntries the most entries, including implied directories (default {@value
 *     #DEFAULT_MAX_ENTRIES})
 * @param maxPathLength the longest entry name or link target, in characters (default {@value
 *     #DEFAULT_MAX_PATH_LENGTH})
 */
public record ArchiveLimits(long maxCompressedBytes, long maxDecompressedBytes, int maxEntries, int maxPathLength) {

  /** The default compressed cap: 50 MiB. */
  public static final long DEFAULT_MAX_COMPRESSED_BYTES = 50L * 1024 * 1024;

  /** The default decompressed cap per pass: 500 MiB. */
  public static final long DEFAULT_MAX_DECOMPRESSED_BYTES = 500L * 1024 * 1024;

  /** The default entry cap. */
  public static final int DEFAULT_MAX_ENTRIES = 20_000;

  /** The default cap on an entry name or link target, in characters. */
  public static final int DEFAULT_MAX_PATH_LENGTH = 1024;

  /** The defaults, which every store and reader uses unless configured otherwise. */
  public static final ArchiveLimits DEFAULTS = new ArchiveLimits(DEFAULT_MAX_COMPRESSED_BYTES,
      DEFAULT_MAX_DECOMPRESSED_BYTES, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_PATH_LENGTH);

  /**
   * Validates the caps.
   *
   * @param maxCompressedBytes the largest archive file, in bytes (default {@value
   *     #DEFAULT_MAX_COMPRESSED_BYTES}, 50 MiB)
   * @param maxDecompressedBytes the most bytes one pass may decompress (default {@value
   *     #DEFAULT_MAX_DECOMPRESSED_BYTES}, 500 MiB)
   * @param maxEntries the most entries, including implied directories (default {@value
   *     #DEFAULT_MAX_ENTRIES})
   * @param maxPathLength the longest entry name or link target, in characters (default {@value
   *     #DEFAULT_MAX_PATH_LENGTH})
   * @throws IllegalArgumentException if a cap is not positive
   */
  public ArchiveLimits {
    if (maxCompressedBytes <= 0 || maxDecompressedBytes <= 0 || maxEntries <= 0 || maxPathLength <= 0) {
      throw new IllegalArgumentException("Cannot use archive limits " + maxCompressedBytes + "/" + maxDecompressedBytes
          + "/" + maxEntries + "/" + maxPathLength + ": every cap is positive");
    }
  }

  /** {@return the defaults, {@link #DEFAULTS}} */
  public static ArchiveLimits defaults() {
    return DEFAULTS;
  }

  /**
   * {@return these limits with another compressed cap}
   *
   * @param bytes the largest archive file, in bytes
   * @throws IllegalArgumentException if {@code bytes} is not positive
   */
  public ArchiveLimits withMaxCompressedBytes(long bytes) {
    return new ArchiveLimits(bytes, maxDecompressedBytes, maxEntries, maxPathLength);
  }

  /**
   * {@return these limits with another decompressed cap}
   *
   * @param bytes the most bytes one pass may decompress
   * @throws IllegalArgumentException if {@code bytes} is not positive
   */
  public ArchiveLimits withMaxDecompressedBytes(long bytes) {
    return new ArchiveLimits(maxCompressedBytes, bytes, maxEntries, maxPathLength);
  }

  /**
   * {@return these limits with another entry cap}
   *
   * @param entries the most entries, including implied directories
   * @throws IllegalArgumentException if {@code entries} is not positive
   */
  public ArchiveLimits withMaxEntries(int entries) {
    return new ArchiveLimits(maxCompressedBytes, maxDecompressedBytes, entries, maxPathLength);
  }

  /**
   * {@return these limits with another path length cap}
   *
   * @param length the longest entry name or link target, in characters
   * @throws IllegalArgumentException if {@code length} is not positive
   */
  public ArchiveLimits withMaxPathLength(int length) {
    return new ArchiveLimits(maxCompressedBytes, maxDecompressedBytes, maxEntries, length);
  }
}
