package dev.tierlock.archive;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.jspecify.annotations.Nullable;

/**
 * A tar reader that keeps hostile headers from costing memory. Commons Compress reads extended
 * headers (PAX {@code x}/{@code g}, GNU long names {@code L}/{@code K}) whole into memory and
 * recurses once per header, and reads GNU sparse maps record by record; all of those reads pass
 * through {@link #read(byte[], int, int)} and {@link #readRecord()} here, which cap each extended
 * header at {@value #MAX_HEADER_BYTES} bytes, global headers at {@value #MAX_GLOBAL_HEADER_BYTES}
 * bytes in all, headers in a row at {@value #MAX_HEADERS_IN_A_ROW}, and refuse every sparse format
 * before its map is read. It also refuses a header record cut short and any non-zero record after
 * the end-of-archive marker, and names that are not valid UTF-8 (in header fields and GNU long
 * names; PAX values decode invalid bytes to U+FFFD, which {@link EntryNames} refuses). Not
 * thread-safe.
 */
final class GuardedTarInputStream extends TarArchiveInputStream {

  static final int MAX_HEADER_BYTES = 64 * 1024;
  static final int MAX_GLOBAL_HEADER_BYTES = 64 * 1024;
  static final int MAX_HEADERS_IN_A_ROW = 16;
  static final int RECORD_SIZE = 512;

  private static final byte[] SPARSE_KEY = "GNU.sparse".getBytes(StandardCharsets.US_ASCII);

  private final String source;
  private @Nullable TarArchiveEntry lastHeader;
  private int headersInARow;
  private long globalHeaderBytes;
  private int sparseMatch;
  private boolean sawEndMarker;
  /** The bytes of the GNU long name or link being read, checked as UTF-8 once it is complete. */
  private final ByteArrayOutputStream gnuName = new ByteArrayOutputStream();

  GuardedTarInputStream(InputStream in, String source) {
    // a block of one record: nothing after the end-of-archive marker is skipped unseen
    super(in, RECORD_SIZE, StandardCharsets.UTF_8.name());
    this.source = source;
  }

  /** Returns whether the end-of-archive marker (a zero record) was read. */
  boolean sawEndMarker() {
    return sawEndMarker;
  }

  /**
   * Returns the next entry that is not an extended header, or {@code null} at the end of the
   * archive.
   *
   * @throws IOException if the tar stream is malformed
   */
  @Nullable TarArchiveEntry next() throws IOException {
    lastHeader = null;
    headersInARow = 0;
    TarArchiveEntry entry = getNextEntry();
    checkGnuName();
    lastHeader = null;
    headersInARow = 0;
    return entry;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    TarArchiveEntry current = getCurrentEntry();
    if (current == null || !isExtendedHeader(current)) {
      return super.read(buffer, offset, length);
    }
    if (current != lastHeader) {
      startHeader(current);
    }
    int n = super.read(buffer, offset, length);
    if (n > 0) {
      if (current.isGlobalPaxHeader()) {
        globalHeaderBytes += n;
        if (globalHeaderBytes > MAX_GLOBAL_HEADER_BYTES) {
          throw ArchiveException.limit(source, ArchiveException.Limit.EXTENDED_HEADER, MAX_GLOBAL_HEADER_BYTES,
              globalHeaderBytes);
        }
      }
      if (current.isPaxHeader() || current.isGlobalPaxHeader()) {
        scanForSparseKeys(buffer, offset, n, current);
      } else {
        gnuName.write(buffer, offset, n);
      }
    }
    return n;
  }

  @Override
  protected byte[] readRecord() throws IOException {
    TarArchiveEntry current = getCurrentEntry();
    if (current != null && current.isOldGNUSparse()) {
      throw ArchiveException.rejected(source, current.getName(), ArchiveException.Rule.SPARSE, "GNU sparse map");
    }
    long before = getBytesRead();
    byte[] record = super.readRecord();
    if (record == null) {
      if (getBytesRead() != before) {
        throw ArchiveException.corrupt(source, "the tar stream ends inside a header record", null);
      }
      return record;
    }
    boolean zero = true;
    for (int i = 0; zero && i < RECORD_SIZE; i++) {
      zero = record[i] == 0;
    }
    if (!zero && sawEndMarker) {
      throw ArchiveException.corrupt(source, "data follows the end-of-archive marker", null);
    }
    sawEndMarker |= zero;
    if (!zero) {
      checkHeaderText(record);
    }
    return record;
  }

  /**
   * Refuses a header whose name, link name or (POSIX ustar) prefix is not valid UTF-8: the decoder
   * would otherwise replace the bad bytes silently, and two tools would see two names.
   */
  private void checkHeaderText(byte[] record) {
    boolean posix = record[257] == 'u' && record[258] == 's' && record[259] == 't' && record[260] == 'a'
        && record[261] == 'r' && record[262] == 0;
    if (!isUtf8(record, 0, 100) || !isUtf8(record, 157, 100) || (posix && !isUtf8(record, 345, 155))) {
      throw ArchiveException.rejected(source, lossy(record, 0, 100), ArchiveException.Rule.INVALID_ENCODING,
          "a header field is not valid UTF-8");
    }
  }

  private void checkGnuName() {
    if (gnuName.size() > 0) {
      byte[] bytes = gnuName.toByteArray();
      gnuName.reset();
      if (!isUtf8(bytes, 0, bytes.length)) {
        throw ArchiveException.rejected(source, lossy(bytes, 0, bytes.length), ArchiveException.Rule.INVALID_ENCODING,
            "a GNU long name is not valid UTF-8");
      }
    }
  }

  /** Returns whether the bytes up to the first NUL (or the end) are valid UTF-8. */
  private static boolean isUtf8(byte[] bytes, int offset, int length) {
    int end = offset;
    while (end < offset + length && bytes[end] != 0) {
      end++;
    }
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, offset, end - offset));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static String lossy(byte[] bytes, int offset, int length) {
    int end = offset;
    while (end < offset + length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, offset, end - offset, StandardCharsets.UTF_8);
  }

  private void startHeader(TarArchiveEntry header) {
    checkGnuName();
    lastHeader = header;
    sparseMatch = 0;
    headersInARow++;
    if (headersInARow > MAX_HEADERS_IN_A_ROW) {
      throw ArchiveException.limit(source, ArchiveException.Limit.EXTENDED_HEADERS_IN_A_ROW, MAX_HEADERS_IN_A_ROW,
          headersInARow);
    }
    if (header.getSize() > MAX_HEADER_BYTES) {
      throw ArchiveException.limit(source, ArchiveException.Limit.EXTENDED_HEADER, MAX_HEADER_BYTES, header.getSize());
    }
  }

  private void scanForSparseKeys(byte[] buffer, int offset, int length, TarArchiveEntry header) {
    for (int i = offset; i < offset + length; i++) {
      byte b = buffer[i];
      if (b == SPARSE_KEY[sparseMatch]) {
        sparseMatch++;
        if (sparseMatch == SPARSE_KEY.length) {
          throw ArchiveException.rejected(source, header.getName(), ArchiveException.Rule.SPARSE,
              "PAX GNU.sparse header");
        }
      } else {
        // 'G' occurs once in the key, at its start, so restarting here misses no match
        sparseMatch = b == SPARSE_KEY[0] ? 1 : 0;
      }
    }
  }

  private static boolean isExtendedHeader(TarArchiveEntry entry) {
    return entry.isPaxHeader() || entry.isGlobalPaxHeader() || entry.isGNULongNameEntry()
        || entry.isGNULongLinkEntry();
  }
}
