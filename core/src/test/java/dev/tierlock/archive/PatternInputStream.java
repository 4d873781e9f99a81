package dev.tierlock.archive;

import java.io.InputStream;

/**
 * Yields {@code size} bytes of a fixed pseudo-random 4 KiB pattern without holding them: a
 * generator for large inputs in constant memory. Compresses well (the pattern repeats) but is not
 * trivially zero.
 */
final class PatternInputStream extends InputStream {

  private static final byte[] PATTERN = new byte[4096];

  static {
    long x = 0x9E3779B97F4A7C15L;
    for (int i = 0; i < PATTERN.length; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      PATTERN[i] = (byte) x;
    }
  }

  private final long size;
  private long position;

  PatternInputStream(long size) {
    this.size = size;
  }

  @Override
  public int read() {
    if (position >= size) {
      return -1;
    }
    return PATTERN[(int) (position++ % PATTERN.length)] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) {
    if (length == 0) {
      return 0;
    }
    if (position >= size) {
      return -1;
    }
    int n = (int) Math.min(length, size - position);
    for (int i = 0; i < n; ) {
      int at = (int) ((position + i) % PATTERN.length);
      int chunk = Math.min(n - i, PATTERN.length - at);
      System.arraycopy(PATTERN, at, buffer, offset + i, chunk);
      i += chunk;
    }
    position += n;
    return n;
  }
}
