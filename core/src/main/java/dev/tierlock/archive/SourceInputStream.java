package dev.tierlock.archive;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Wraps the caller's archive stream so that a failure to read it surfaces as {@link
 * ArchiveException} {@code archive_io} (the source failed) rather than as a parse error
 * ({@code archive_corrupt}: the archive is corrupt),
 * and so that closing the pass does not close a stream the caller owns. Not thread-safe.
 */
final class SourceInputStream extends FilterInputStream {

  private final String source;

  SourceInputStream(InputStream in, String source) {
    super(in);
    this.source = source;
  }

  @Override
  public int read() throws IOException {
    try {
      return in.read();
    } catch (IOException e) {
      throw failure(e);
    }
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    try {
      return in.read(buffer, offset, length);
    } catch (IOException e) {
      throw failure(e);
    }
  }

  @Override
  public long skip(long n) throws IOException {
    try {
      return in.skip(n);
    } catch (IOException e) {
      throw failure(e);
    }
  }

  @Override
  public int available() throws IOException {
    try {
      return in.available();
    } catch (IOException e) {
      throw failure(e);
    }
  }

  @Override
  public void close() {
    // the caller owns the stream
  }

  private ArchiveException failure(IOException e) {
    return ArchiveException.io(source, "Cannot read archive " + source + ": " + e.getMessage(), e);
  }
}
