package dev.tierlock.datastore.s3;

import dev.tierlock.spi.ObjectBody;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import software.amazon.awssdk.http.ContentStreamProvider;

/**
 * Feeds a caller's {@link ObjectBody} to the SDK, opened afresh for each attempt, and marks a
 * failure to read it with {@link BodyReadException} so that it is not mistaken for a network fault.
 */
final class UploadBody implements ContentStreamProvider {

  private final ObjectBody body;

  UploadBody(ObjectBody body) {
    this.body = body;
  }

  @Override
  public InputStream newStream() {
    try {
      return new MarkingStream(body.open());
    } catch (IOException e) {
      throw new UncheckedIOException(new BodyReadException(e));
    }
  }

  @Override
  public String name() {
    return "tierlock-object-body";
  }

  private static final class MarkingStream extends FilterInputStream {

    MarkingStream(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      try {
        return super.read();
      } catch (IOException e) {
        throw new BodyReadException(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      try {
        return super.read(b, off, len);
      } catch (IOException e) {
        throw new BodyReadException(e);
      }
    }
  }
}
