package dev.tierlock.archive;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * Streams bytes through one {@value #BUFFER_SIZE}-byte buffer, hashing them with SHA-256, counting
 * them against a cap and, optionally, writing them to a channel. A checkpoint runs before every
 * read, where deadlines and interruption are checked. Read failures surface as {@link
 * SourceException} so callers can tell them from write failures. Constant memory; stateless.
 */
final class VerifyingCopy {

  static final int BUFFER_SIZE = 64 * 1024;

  /** The outcome of a copy: how many bytes, and their SHA-256 in lowercase hex. */
  record Result(long size, String sha256) {}

  /** Runs before every read; throws to stop the copy. */
  @FunctionalInterface
  interface Checkpoint {
    /** Returns normally to continue. */
    void check();
  }

  /** Reading the source failed. */
  static final class SourceException extends IOException {
    private static final long serialVersionUID = 1L;

    SourceException(IOException cause) {
      super(cause.getMessage(), cause);
    }
  }

  private VerifyingCopy() {}

  /**
   * Copies {@code in} to its end (not closing it) into {@code out} when given, hashing.
   *
   * @param max the cap on the bytes read; crossing it throws {@link ArchiveException} ({@code archive_limit})
   *     ({@link ArchiveException.Limit#COMPRESSED_BYTES}) naming {@code source}
   * @throws SourceException if reading {@code in} fails
   * @throws IOException if writing {@code out} fails
   */
  static Result copy(InputStream in, @Nullable WritableByteChannel out, long max, String source, Checkpoint checkpoint)
      throws IOException {
    MessageDigest digest = sha256();
    byte[] buffer = new byte[BUFFER_SIZE];
    ByteBuffer wrapped = ByteBuffer.wrap(buffer);
    long total = 0;
    while (true) {
      checkpoint.check();
      int n;
      try {
        n = in.read(buffer, 0, CappedInputStream.allowed(max, total, buffer.length));
      } catch (IOException e) {
        throw new SourceException(e);
      }
      if (n < 0) {
        break;
      }
      total += n;
      if (total > max) {
        throw ArchiveException.limit(source, ArchiveException.Limit.COMPRESSED_BYTES, max, total);
      }
      digest.update(buffer, 0, n);
      if (out != null) {
        wrapped.clear().limit(n);
        while (wrapped.hasRemaining()) {
          out.write(wrapped);
        }
      }
    }
    return new Result(total, HexFormat.of().formatHex(digest.digest()));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash archives: this JVM lacks SHA-256, which every JVM must provide", e);
    }
  }
}
