package dev.tierlock;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A range of bytes of an array nobody writes to. Immutable. {@link Splice} assembles such ranges
 * into one array.
 */
final class Span {

  static final Span EMPTY = new Span(new byte[0], 0, 0);

  private final byte[] bytes;
  private final int from;
  private final int to;

  Span(byte[] bytes, int from, int to) {
    if (from < 0 || to < from || to > bytes.length) {
      throw new IllegalArgumentException("Cannot cut span [" + from + ", " + to + ") of " + bytes.length + " bytes");
    }
    this.bytes = bytes;
    this.from = from;
    this.to = to;
  }

  /** Returns the span of {@code text} encoded as UTF-8. */
  static Span of(String text) {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    return new Span(b, 0, b.length);
  }

  /** Returns the array the span is cut from; never written to. */
  byte[] array() {
    return bytes;
  }

  /** Returns the index of the span's first byte in {@link #array()}. */
  int from() {
    return from;
  }

  int length() {
    return to - from;
  }

  /**
   * Returns the text after the last line break of this span (for whitespace: the indentation of
   * the line it ends on), or null when it holds no line break.
   */
  @Nullable String afterLastLineBreak() {
    for (int i = to - 1; i >= from; i--) {
      if (bytes[i] == '\n' || bytes[i] == '\r') {
        return new String(bytes, i + 1, to - i - 1, StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return new String(bytes, from, to - from, StandardCharsets.UTF_8);
  }

  /**
   * Lockfile bytes being put together: spans that continue one another in the same array (an
   * untouched stretch of a parsed file) are copied as one run. Not thread-safe.
   */
  static final class Splice {

    private final byte[] out;
    private int at;
    private byte @Nullable [] run;
    private int runFrom;
    private int runTo;

    Splice(byte[] out) {
      this.out = out;
    }

    void add(Span span) {
      if (span.length() == 0) {
        return;
      }
      if (span.bytes == run && span.from == runTo) {
        runTo = span.to;
        return;
      }
      flush();
      run = span.bytes;
      runFrom = span.from;
      runTo = span.to;
    }

    /** Adds a comma: the one that follows the current run in its bytes when there is one. */
    void comma() {
      byte[] current = run;
      if (current != null && runTo < current.length && current[runTo] == ',') {
        runTo++;
        return;
      }
      flush();
      out[at++] = ',';
    }

    private void flush() {
      byte[] current = run;
      if (current != null) {
        System.arraycopy(current, runFrom, out, at, runTo - runFrom);
        at += runTo - runFrom;
        run = null;
      }
    }

    byte[] finish() {
      flush();
      if (at != out.length) {
        throw new IllegalStateException("Cannot assemble lockfile bytes: " + at + " of " + out.length + " bytes written");
      }
      return out;
    }
  }
}
