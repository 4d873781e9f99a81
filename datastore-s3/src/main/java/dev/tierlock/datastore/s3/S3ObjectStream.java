package dev.tierlock.datastore.s3;

import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.StoredObject;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * An open GetObject download. Closing it (or its stream) before the last byte aborts the
 * connection instead of draining the rest of the body. A read that fails in the SDK (an {@link
 * SdkException}, or a cancellation or completion failure it let through) is an {@link IOException}
 * naming the object, as the SPI promises; an interrupted one an {@link InterruptedIOException}, with
 * the thread's interrupt flag set. Not thread-safe.
 */
final class S3ObjectStream implements ObjectStream {

  private final StoredObject object;
  private final ResponseInputStream<GetObjectResponse> response;
  private final EndTracking stream;
  private boolean closed;

  S3ObjectStream(StoredObject object, ResponseInputStream<GetObjectResponse> response) {
    this.object = object;
    this.response = response;
    this.stream = new EndTracking(response);
  }

  @Override
  public StoredObject object() {
    return object;
  }

  @Override
  public InputStream stream() {
    return stream;
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    if (!stream.ended) {
      response.abort();
    }
    response.close();
  }

  /** Remembers whether the body was read to its end; closing it closes the download. */
  private final class EndTracking extends FilterInputStream {

    private boolean ended;

    EndTracking(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      try {
        int b = super.read();
        ended |= b < 0;
        return b;
      } catch (SdkException | CancellationException | CompletionException e) {
        throw failed(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        int n = super.read(b, off, len);
        ended |= n < 0;
        return n;
      } catch (SdkException | CancellationException | CompletionException e) {
        throw failed(e);
      }
    }

    private IOException failed(RuntimeException e) {
      String what = "Cannot read " + object.key().value() + ": ";
      if (e instanceof AbortedException || e.getCause() instanceof InterruptedException) {
        Thread.currentThread().interrupt();
        InterruptedIOException interrupted = new InterruptedIOException(what + "the read was interrupted");
        interrupted.initCause(e);
        return interrupted;
      }
      return new IOException(what + "the download failed (" + e + ")", e);
    }

    @Override
    public void close() throws IOException {
      S3ObjectStream.this.close();
    }
  }
}
