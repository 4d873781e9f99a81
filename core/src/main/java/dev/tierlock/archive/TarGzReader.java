package dev.tierlock.archive;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Lists and extracts {@code .tar.gz} archives from untrusted sources, streaming, in one pass each,
 * within {@link ArchiveLimits}. Memory stays constant whatever the archive's size: bytes flow
 * through one 64 KiB buffer; only the entry list (bounded by the entry cap) is kept.
 *
 * <p><b>What is refused</b> (the whole archive, with {@link ArchiveException} ({@code archive_rejected}) naming the
 * entry and its {@link ArchiveException.Rule}): names that are empty, absolute ({@code /x}, {@code C:x}),
 * hold {@code ..}, a backslash, NUL or another control character, or invalid UTF-8; absolute link
 * targets; symbolic links that resolve outside the root, directly or through other links of the
 * archive, whatever their order; entries under a symbolic link or a file; hard links to anything
 * but an earlier regular file; devices, FIFOs, sparse and other entry types; duplicate paths.
 * Caps give {@link ArchiveException} ({@code archive_limit}): compressed and decompressed bytes (counted as gzip
 * yields them, never as headers claim), entries, name length, extended headers (tar PAX and GNU
 * long names, gzip header texts). A stream that is not gzip, is truncated, whose tar headers
 * declare more (or less) data than follows, that lacks tar's end-of-archive marker or has non-zero
 * bytes after it, gives {@link ArchiveException} ({@code archive_corrupt}).
 *
 * <p><b>Trailing data</b> is refused, not ignored: the archive is exactly one gzip member (a
 * second member, or any byte after the first, even zeros, is corrupt), and inside it only zero
 * padding may follow tar's end-of-archive marker. Content-addressed archives gain nothing from
 * trailing bytes, and accepting them would let two tools read one archive two ways. AppleDouble
 * {@code ._*} files are skipped, not refused.
 *
 * <p><b>Extraction</b> writes only inside a staging directory that it creates (its parent must
 * exist) or finds empty. It never follows a link: files are created new without following links,
 * every parent is checked to be a real directory, and symbolic links are created last, once every
 * check has passed. On any failure it removes everything it wrote (and the staging directory, when
 * it created it) before throwing. Permission bits are kept where the filesystem supports POSIX
 * permissions (the owner keeps read access to files and full access to directories); times and
 * owners are not restored.
 *
 * <p>Immutable and thread-safe; each call is independent.
 */
final class TarGzReader {

  private final ArchiveLimits limits;

  private TarGzReader(ArchiveLimits limits) {
    this.limits = limits;
  }

  /**
   * {@return a reader that applies {@code limits}}
   *
   * @param limits the caps the reader applies
   */
  static TarGzReader of(ArchiveLimits limits) {
    return new TarGzReader(limits);
  }

  /** {@return the limits this reader applies} */
  ArchiveLimits limits() {
    return limits;
  }

  /**
   * Lists an archive file, checking every rule, without writing anything.
   *
   * @param archive the {@code .tar.gz} file; it names the archive in errors
   * @return the accepted entries
   * @throws ArchiveException if the archive is refused or cannot be read
   */
  ArchiveListing list(Path archive) {
    String source = archive.toString();
    try (InputStream in = open(archive, source)) {
      return new TarGzPass(source, limits).run(in, EntrySink.NONE);
    } catch (IOException e) {
      throw closeFailure(source, e);
    }
  }

  /**
   * Lists an archive read from {@code in}, which is read to its end but not closed.
   *
   * @param in the {@code .tar.gz} bytes
   * @param source what the archive is (its key or file), for errors
   * @return the accepted entries
   * @throws ArchiveException if the archive is refused or {@code in} fails
   */
  ArchiveListing list(InputStream in, String source) {
    return new TarGzPass(source, limits).run(in, EntrySink.NONE);
  }

  /**
   * Extracts an archive file into {@code staging}, which must not exist (its parent must) or be an
   * empty directory.
   *
   * @param archive the archive file ({@code .tar.gz})
   * @param staging the directory to extract into
   * @return the entries written
   * @throws ArchiveException if the archive is refused or a read or write fails; nothing written
   *     is left behind
   */
  ArchiveListing extract(Path archive, Path staging) {
    String source = archive.toString();
    try (InputStream in = open(archive, source)) {
      return extract(in, source, staging);
    } catch (IOException e) {
      throw closeFailure(source, e);
    }
  }

  /**
   * Extracts an archive read from {@code in} (read to its end, not closed) into {@code staging},
   * which must not exist (its parent must) or be an empty directory.
   *
   * @param in the {@code .tar.gz} bytes
   * @param source what the archive is (its key or file), for errors
   * @param staging where to write
   * @return the entries written
   * @throws ArchiveException if the archive is refused or a read or write fails; nothing written
   *     is left behind
   */
  ArchiveListing extract(InputStream in, String source, Path staging) {
    StagingWriter writer = StagingWriter.open(staging, source);
    try {
      return new TarGzPass(source, limits).run(in, writer);
    } catch (RuntimeException | Error e) {
      writer.discard(e);
      throw e;
    }
  }

  private InputStream open(Path archive, String source) {
    try {
      long size = Files.size(archive);
      if (size > limits.maxCompressedBytes()) {
        throw ArchiveException.limit(source, ArchiveException.Limit.COMPRESSED_BYTES, limits.maxCompressedBytes(),
            size);
      }
      return Files.newInputStream(archive);
    } catch (IOException e) {
      throw ArchiveException.io(source, "Cannot read archive " + source + ": " + e.getMessage(), e);
    }
  }

  private static ArchiveException closeFailure(String source, IOException e) {
    return ArchiveException.io(source, "Cannot close archive " + source + ": " + e.getMessage(), e);
  }
}
