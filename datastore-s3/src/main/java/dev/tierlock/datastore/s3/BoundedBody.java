package dev.tierlock.datastore.s3;

import java.io.IOException;
import software.amazon.awssdk.core.exception.RetryableException;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Reads a GetObject body into memory only when it fits a bound. Runs inside the SDK's call, so the
 * call's deadlines cover the body too. The {@code Content-Length} the store announces is checked
 * before any byte is read; the body is then read with a cap of one byte over the bound, in case the
 * announcement was wrong. An oversize body is aborted (its connection is closed, never drained)
 * and reported by throwing {@link TooLarge}, which the SDK does not retry. A failure while reading
 * is a {@link RetryableException}, as for the SDK's own byte transformer.
 */
final class BoundedBody implements ResponseTransformer<GetObjectResponse, BoundedBody.Read> {

  /** The largest array the JVM reliably allocates. */
  private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

  private final long maxBytes;

  /**
   * Creates a transformer.
   *
   * @param maxBytes the largest body accepted, positive
   */
  BoundedBody(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * A body read whole.
   *
   * @param response the answer's headers
   * @param bytes the body
   */
  record Read(GetObjectResponse response, byte[] bytes) {}

  @Override
  public Read transform(GetObjectResponse response, AbortableInputStream body) throws Exception {
    Long announced = response.contentLength();
    if (announced != null && announced > maxBytes) {
      body.abort();
      throw new TooLarge(announced, maxBytes);
    }
    if (announced != null && announced > MAX_ARRAY) {
      body.abort();
      throw new IOException("the object holds " + announced + " bytes, too many to read whole; stream it");
    }
    byte[] bytes;
    try {
      bytes = body.readNBytes((int) Math.min(maxBytes, MAX_ARRAY) + 1);
    } catch (IOException e) {
      throw RetryableException.builder().message("Cannot read the body of the answer: " + e).cause(e).build();
    }
    if (bytes.length > maxBytes) {
      body.abort();
      throw new TooLarge(-1, maxBytes);
    }
    return new Read(response, bytes);
  }

  /**
   * The body was larger than the bound; nothing of it was kept. Carries what the translator needs to
   * report it. Without a stack trace: it is an answer, not a bug.
   */
  static final class TooLarge extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long size;
    private final long limit;

    TooLarge(long size, long limit) {
      super("the body is " + (size >= 0 ? size + " bytes" : "larger than that") + ", over the bound of " + limit,
          null, false, false);
      this.size = size;
      this.limit = limit;
    }

    /** Returns the size the store announced, or -1 when the body ran over without an announcement. */
    long size() {
      return size;
    }

    /** Returns the bound. */
    long limit() {
      return limit;
    }
  }
}
