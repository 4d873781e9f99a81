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
public record ArchiveListing(List<Entry> entries, int skipped, long decompressedBytes) {

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
    return entries.stream().map(Entry::path).toList();
  }

  /**
   * One accepted entry of an archive, as listed or extracted. Paths are relative to the archive root,
   * normalised (segments joined by {@code /}, no {@code .}, {@code ..} or empty segment, no leading
   * or trailing {@code /}). Immutable.
   */
  public sealed interface Entry {

    /** {@return the entry's normalised path, relative to the archive root} */
    String path();

    /**
     * A regular file.
     *
     * @param path the normalised path
     * @param size the length in bytes
     * @param mode the permission bits from the archive ({@code 0777} mask)
     */
    record File(String path, long size, int mode) implements Entry {

      /**
       * Validates the values.
       *
       * @param path the normalised path
       * @param size the length in bytes
       * @param mode the permission bits from the archive ({@code 0777} mask)
       * @throws IllegalArgumentException if the path is empty or the size negative
       */
      public File {
        requirePath(path);
        if (size < 0) {
          throw new IllegalArgumentException("Cannot describe archive file " + path + ": negative size " + size);
        }
      }
    }

    /**
     * A directory.
     *
     * @param path the normalised path
     * @param mode the permission bits from the archive ({@code 0777} mask)
     */
    record Directory(String path, int mode) implements Entry {

      /**
       * Validates the path.
       *
       * @param path the normalised path
       * @param mode the permission bits from the archive ({@code 0777} mask)
       * @throws IllegalArgumentException if the path is empty
       */
      public Directory {
        requirePath(path);
      }
    }

    /**
     * A symbolic link whose target resolves inside the archive.
     *
     * @param path the normalised path of the link
     * @param target the target exactly as the archive holds it, relative to the link's directory
     */
    record SymbolicLink(String path, String target) implements Entry {

      /**
       * Validates the values.
       *
       * @param path the normalised path of the link
       * @param target the target exactly as the archive holds it, relative to the link's directory
       * @throws IllegalArgumentException if the path or target is empty
       */
      public SymbolicLink {
        requirePath(path);
        if (target.isEmpty()) {
          throw new IllegalArgumentException("Cannot describe archive link " + path + ": empty target");
        }
      }
    }

    /**
     * A hard link to an earlier regular file of the same archive.
     *
     * @param path the normalised path of the link
     * @param target the normalised path of the file it links to
     */
    record HardLink(String path, String target) implements Entry {

      /**
       * Validates the values.
       *
       * @param path the normalised path of the link
       * @param target the normalised path of the file it links to
       * @throws IllegalArgumentException if the path or target is empty
       */
      public HardLink {
        requirePath(path);
        requirePath(target);
      }
    }

    private static void requirePath(String path) {
      if (path.isEmpty() || path.startsWith("/") || path.endsWith("/")) {
        throw new IllegalArgumentException("Cannot describe archive entry \"" + Printable.of(path)
            + "\": a path is relative, non-empty and has no trailing '/'");
      }
    }
  }
}
