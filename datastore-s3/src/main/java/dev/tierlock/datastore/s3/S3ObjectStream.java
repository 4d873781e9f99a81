package dev.tierlock.datastore.s3;

import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.StoredObject;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * An open GetObject download. Closing it (or its stream) before the last byte aborts the
 * connection instead of draining the rest of the body. Not thread-safe.
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
      int b = super.read();
      ended |= b < 0;
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      ended |= n < 0;
      return n;
    }

    @Override
    public void close() throws IOException {
      S3ObjectStream.this.close();
    }
  }
}
