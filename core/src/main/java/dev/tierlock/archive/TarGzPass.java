package dev.tierlock.archive;

import dev.tierlock.TierlockException;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * One streaming pass (single use) over a {@code .tar.gz}: gunzip, count, parse, check every entry, hand the
 * accepted ones to a sink. Constant memory: one {@value #BUFFER_SIZE}-byte buffer, the parsers'
 * fixed buffers, and the entry model bounded by {@link ArchiveLimits#maxEntries()}.
 *
 * <p>What is accepted: exactly one gzip member whose optional file name and comment are at most
 * {@value #MAX_GZIP_TEXT} bytes each, then nothing else (a second member or any byte after it,
 * even zeros, is corrupt: the parser would hold each later member's header text in memory, and two
 * tools could disagree on what follows); one tar stream that ends with its end-of-archive marker,
 * after which only zero bytes may follow (tar's block padding). Everything else, and every entry
 * rule of {@link ArchiveException.Rule}, fails the whole pass.
 */
final class TarGzPass {

  static final int BUFFER_SIZE = 64 * 1024;

  /** The longest gzip header file name or comment accepted, in bytes. */
  static final int MAX_GZIP_TEXT = 4096;

  private static final int GZIP_FEXTRA = 4;
  private static final int GZIP_FNAME = 8;
  private static final int GZIP_FCOMMENT = 16;

  private enum Type { FILE, DIRECTORY, SYMBOLIC_LINK, HARD_LINK }

  private final String source;
  private final ArchiveLimits limits;
  private final EntryNames names;
  private String current = "";

  TarGzPass(String source, ArchiveLimits limits) {
    this.source = source;
    this.limits = limits;
    this.names = new EntryNames(source, limits);
  }

  /**
   * Runs the pass over {@code raw} (not closed) into {@code sink}.
   *
   * @throws ArchiveException if the archive breaks a rule or cap, is corrupt, or a read or write
   *     fails
   */
  ArchiveListing run(InputStream raw, EntrySink sink) {
    try (BufferedInputStream compressed = new BufferedInputStream(new CappedInputStream(
            new SourceInputStream(raw, source), limits.maxCompressedBytes(), ArchiveException.Limit.COMPRESSED_BYTES,
            source), BUFFER_SIZE)) {
      checkGzipHeader(compressed);
      try (GzipCompressorInputStream gzip = GzipCompressorInputStream.builder().setInputStream(compressed)
              .setDecompressConcatenated(false).get();
          CappedInputStream decompressed = new CappedInputStream(gzip, limits.maxDecompressedBytes(),
              ArchiveException.Limit.DECOMPRESSED_BYTES, source);
          GuardedTarInputStream tar = new GuardedTarInputStream(decompressed, source)) {
        ArchiveListing listing = entries(tar, decompressed, sink);
        if (compressed.read() >= 0) {
          throw ArchiveException.corrupt(source, "data follows the gzip stream (another member or garbage)", null);
        }
        return listing;
      }
    } catch (IOException e) {
      String reason = e instanceof EOFException ? "the stream ends early (truncated)"
          : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw ArchiveException.corrupt(source, reason
          + (current.isEmpty() ? "" : ", in or after entry \"" + Printable.of(current) + "\""), e);
    } catch (TierlockException e) {
      throw e;
    } catch (RuntimeException e) {
      // a parser's unchecked failure on hostile input
      throw ArchiveException.corrupt(source, e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  private ArchiveListing entries(GuardedTarInputStream tar, CappedInputStream decompressed, EntrySink sink)
      throws IOException {
    EntryTree tree = new EntryTree(source, limits.maxEntries());
    List<ArchiveListing.Entry> accepted = new ArrayList<>();
    List<ArchiveListing.Entry.SymbolicLink> links = new ArrayList<>();
    byte[] buffer = new byte[BUFFER_SIZE];
    int seen = 0;
    int skipped = 0;
    TarArchiveEntry entry;
    while ((entry = tar.next()) != null) {
      if (++seen > limits.maxEntries()) {
        throw ArchiveException.limit(source, ArchiveException.Limit.ENTRIES, limits.maxEntries(), seen);
      }
      String name = entry.getName();
      current = name;
      Type type = type(entry);
      String path = names.entryPath(name);
      if (path.isEmpty()) {
        if (type != Type.DIRECTORY) {
          throw ArchiveException.rejected(source, name, ArchiveException.Rule.ROOT_ENTRY, "");
        }
        continue;
      }
      int mode = entry.getMode() & 0777;
      switch (type) {
        case DIRECTORY -> {
          tree.addDirectory(path, name);
          sink.directory(path, mode);
          accepted.add(new ArchiveListing.Entry.Directory(path, mode));
        }
        case FILE -> {
          long declared = entry.getSize();
          if (declared > limits.maxDecompressedBytes() - decompressed.count()) {
            throw ArchiveException.limit(source, ArchiveException.Limit.DECOMPRESSED_BYTES,
                limits.maxDecompressedBytes(), decompressed.count() + declared);
          }
          if (EntryNames.isAppleDouble(path)) {
            skipped++;
            copy(tar, EntrySink.NONE.file(path, mode), buffer, name, declared);
            continue;
          }
          tree.addFile(path, name);
          copy(tar, sink.file(path, mode), buffer, name, declared);
          accepted.add(new ArchiveListing.Entry.File(path, declared, mode));
        }
        case HARD_LINK -> {
          String target = names.hardLinkTarget(name, entry.getLinkName());
          tree.addHardLink(path, name, target);
          sink.hardLink(path, target);
          accepted.add(new ArchiveListing.Entry.HardLink(path, target));
        }
        case SYMBOLIC_LINK -> {
          String target = names.symbolicLinkTarget(name, entry.getLinkName());
          tree.addSymbolicLink(path, name, target);
          ArchiveListing.Entry.SymbolicLink link = new ArchiveListing.Entry.SymbolicLink(path, target);
          links.add(link);
          accepted.add(link);
        }
      }
    }
    if (!tar.sawEndMarker()) {
      throw ArchiveException.corrupt(source, "the tar stream has no end-of-archive marker", null);
    }
    requireZeroPadding(decompressed, buffer);
    tree.checkSymbolicLinks();
    for (ArchiveListing.Entry.SymbolicLink link : links) {
      sink.symbolicLink(link.path(), link.target());
    }
    sink.finish();
    return new ArchiveListing(accepted, skipped, decompressed.count());
  }

  /**
   * Bounds the text fields of the gzip header before the gzip reader (which holds them in memory)
   * sees them, then rewinds. Anything malformed is left for the gzip reader to report.
   */
  private void checkGzipHeader(BufferedInputStream in) throws IOException {
    in.mark(10 + 2 + 0xffff + 2 * (MAX_GZIP_TEXT + 2));
    try {
      if (in.read() != 0x1f || in.read() != 0x8b || in.read() < 0) {
        return;
      }
      int flags = in.read();
      if (flags < 0 || !skipFully(in, 6)) {
        return;
      }
      if ((flags & GZIP_FEXTRA) != 0) {
        int low = in.read();
        int high = in.read();
        if (low < 0 || high < 0 || !skipFully(in, low | high << 8)) {
          return;
        }
      }
      if ((flags & GZIP_FNAME) != 0 && !skipText(in)) {
        return;
      }
      if ((flags & GZIP_FCOMMENT) != 0) {
        skipText(in);
      }
    } finally {
      in.reset();
    }
  }

  /** Reads and drops {@code n} bytes; returns false when the stream ends first. */
  private static boolean skipFully(InputStream in, int n) throws IOException {
    for (int i = 0; i < n; i++) {
      if (in.read() < 0) {
        return false;
      }
    }
    return true;
  }

  /** Skips one NUL-terminated header text; returns false at the end of the stream. */
  private boolean skipText(InputStream in) throws IOException {
    for (int length = 0; ; length++) {
      int b = in.read();
      if (b <= 0) {
        return b == 0;
      }
      if (length >= MAX_GZIP_TEXT) {
        throw ArchiveException.limit(source, ArchiveException.Limit.EXTENDED_HEADER, MAX_GZIP_TEXT, length + 1L);
      }
    }
  }

  private Type type(TarArchiveEntry entry) {
    String name = entry.getName();
    if (entry.isSparse()) {
      throw ArchiveException.rejected(source, name, ArchiveException.Rule.SPARSE, "");
    }
    byte flag = entry.getLinkFlag();
    switch (flag) {
      case TarConstants.LF_NORMAL, TarConstants.LF_OLDNORM, TarConstants.LF_CONTIG:
        return name.endsWith("/") ? directory(entry) : Type.FILE;
      case TarConstants.LF_DIR:
        return directory(entry);
      case TarConstants.LF_LINK:
        return Type.HARD_LINK;
      case TarConstants.LF_SYMLINK:
        return Type.SYMBOLIC_LINK;
      case TarConstants.LF_CHR, TarConstants.LF_BLK, TarConstants.LF_FIFO:
        throw ArchiveException.rejected(source, name, ArchiveException.Rule.SPECIAL_FILE, kind(flag));
      case TarConstants.LF_GNUTYPE_SPARSE:
        throw ArchiveException.rejected(source, name, ArchiveException.Rule.SPARSE, "");
      default:
        throw ArchiveException.rejected(source, name, ArchiveException.Rule.UNSUPPORTED_TYPE, kind(flag));
    }
  }

  private Type directory(TarArchiveEntry entry) {
    if (entry.getSize() != 0) {
      throw ArchiveException.rejected(source, entry.getName(), ArchiveException.Rule.UNSUPPORTED_TYPE,
          "a directory entry that carries " + entry.getSize() + " bytes of data");
    }
    return Type.DIRECTORY;
  }

  private static String kind(byte flag) {
    return switch (flag) {
      case TarConstants.LF_CHR -> "a character device";
      case TarConstants.LF_BLK -> "a block device";
      case TarConstants.LF_FIFO -> "a FIFO";
      default -> flag >= 0x21 && flag < 0x7f ? "type '" + (char) flag + "'" : "type byte " + (flag & 0xff);
    };
  }

  private void copy(GuardedTarInputStream tar, EntrySink.FileOutput output, byte[] buffer, String name, long declared)
      throws IOException {
    long copied = 0;
    try (output) {
      int n;
      while ((n = tar.read(buffer, 0, buffer.length)) > 0) {
        output.write(buffer, 0, n);
        copied += n;
      }
    }
    if (copied != declared) {
      throw ArchiveException.corrupt(source, "entry \"" + Printable.of(name) + "\" holds " + copied
          + " bytes, its header declares " + declared, null);
    }
  }

  private void requireZeroPadding(CappedInputStream decompressed, byte[] buffer) throws IOException {
    int n;
    while ((n = decompressed.read(buffer, 0, buffer.length)) >= 0) {
      for (int i = 0; i < n; i++) {
        if (buffer[i] != 0) {
          throw ArchiveException.corrupt(source, "data follows the end of the tar archive", null);
        }
      }
    }
  }
}
