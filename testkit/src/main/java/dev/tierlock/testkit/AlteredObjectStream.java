package dev.tierlock.testkit;

import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.StoredObject;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A download that breaks after a number of bytes, or flips the bits of one byte, as injected by
 * {@link Faults#breakNextStream} and {@link Faults#corruptNextRead}. Not thread-safe, like any
 * {@link ObjectStream}.
 */
final class AlteredObjectStream implements ObjectStream {

  private final ObjectStream delegate;
  private final InputStream stream;

  /**
   * @param breakAfter bytes to yield before throwing, or -1 to never break
   * @param corruptAt the position of the byte to flip, or -1 to flip none
   */
  AlteredObjectStream(ObjectStream delegate, long breakAfter, long corruptAt) {
    this.delegate = delegate;
    this.stream = new Altering(delegate.stream(), delegate.object().key().value(), breakAfter, corruptAt);
  }

  @Override
  public StoredObject object() {
    return delegate.object();
  }

  @Override
  public InputStream stream() {
    return stream;
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  private static final class Altering extends FilterInputStream {
    private final String key;
    private final long breakAfter;
    private final long corruptAt;
    private long position;

    Altering(InputStream in, String key, long breakAfter, long corruptAt) {
      super(in);
      this.key = key;
      this.breakAfter = breakAfter;
      this.corruptAt = corruptAt;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      if (length == 0) {
        return 0;
      }
      int allowed = length;
      if (breakAfter >= 0) {
        if (position >= breakAfter) {
          throw new IOException("Cannot read object " + key + ": connection reset after " + position
              + " bytes (injected breakNextStream)");
        }
        allowed = (int) Math.min(length, breakAfter - position);
      }
      int n = in.read(buffer, offset, allowed);
      if (n > 0) {
        if (corruptAt >= position && corruptAt < position + n) {
          buffer[offset + (int) (corruptAt - position)] ^= (byte) 0xff;
        }
        position += n;
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      byte[] sink = new byte[(int) Math.min(Math.max(n, 0), 8192)];
      int read = read(sink, 0, sink.length);
      return Math.max(read, 0);
    }

    @Override
    public boolean markSupported() {
      return false;
    }
  }
}
