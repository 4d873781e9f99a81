package dev.tierlock.archive;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Counts the bytes a stream yields and throws {@link ArchiveException} ({@code archive_limit}) as soon as the count
 * passes a cap. Never asks the delegate for more than one byte past the cap, so a bomb is stopped
 * after at most {@code max + 1} bytes. Counts what is read or skipped, never what a header claims.
 * Not thread-safe.
 */
final class CappedInputStream extends FilterInputStream {

  private final long max;
  private final ArchiveException.Limit limit;
  private final String source;
  private long count;

  CappedInputStream(InputStream in, long max, ArchiveException.Limit limit, String source) {
    super(in);
    this.max = max;
    this.limit = limit;
    this.source = source;
  }

  /** Returns how many bytes have been read or skipped so far. */
  long count() {
    return count;
  }

  @Override
  public int read() throws IOException {
    int b = in.read();
    if (b >= 0) {
      add(1);
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    int n = in.read(buffer, offset, allowed(max, count, length));
    if (n > 0) {
      add(n);
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long remaining = max - count;
    long skipped = in.skip(remaining >= n ? n : remaining + 1);
    if (skipped > 0) {
      add(skipped);
    }
    return skipped;
  }

  @Override
  public boolean markSupported() {
    return false;
  }

  @Override
  public synchronized void mark(int readLimit) {
    // unsupported: counting must see every byte once
  }

  @Override
  public synchronized void reset() throws IOException {
    throw new IOException("Cannot reset a counting stream: mark is not supported");
  }

  /**
   * Returns how many of {@code length} bytes to ask for so that at most one byte past {@code max}
   * is ever read, given {@code count <= max} read so far (no overflow, even for {@code max ==
   * Long.MAX_VALUE}).
   */
  static int allowed(long max, long count, int length) {
    long remaining = max - count;
    return remaining >= length ? length : (int) remaining + 1;
  }

  private void add(long n) {
    count += n;
    if (count > max) {
      throw ArchiveException.limit(source, limit, max, count);
    }
  }
}
