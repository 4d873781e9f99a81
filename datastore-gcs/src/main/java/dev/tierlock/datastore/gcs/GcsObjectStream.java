package dev.tierlock.datastore.gcs;

import com.google.cloud.ReadChannel;
import com.google.cloud.storage.StorageException;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.StoredObject;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;

/**
 * A download of one object generation through a {@link ReadChannel} pinned to that generation, so
 * the bytes are exactly those of {@link #object()}; if the generation is replaced before the bytes
 * are read, reading fails with an {@link IOException} instead of mixing versions. Failures while
 * reading are {@link IOException}s whose message names the object. Not thread-safe.
 */
final class GcsObjectStream implements ObjectStream {

  private final StoredObject object;
  private final ReadChannel channel;
  private final InputStream stream;

  GcsObjectStream(StoredObject object, ReadChannel channel, String where) {
    this.object = object;
    this.channel = channel;
    String what = "object " + object.key() + " (generation " + object.version() + ") in " + where;
    this.stream = new FilterInputStream(Channels.newInputStream(channel)) {
      @Override
      public int read() throws IOException {
        try {
          return super.read();
        } catch (IOException | StorageException e) {
          throw new IOException("Cannot read " + what + ": " + e.getMessage(), e);
        }
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        try {
          return super.read(b, off, len);
        } catch (IOException | StorageException e) {
          throw new IOException("Cannot read " + what + ": " + e.getMessage(), e);
        }
      }
    };
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
    channel.close();
  }
}
