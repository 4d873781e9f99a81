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
 * Downloads of one object generation through a {@link ReadChannel} pinned to that generation, so
 * the bytes are exactly those of the {@link StoredObject} described; if the generation is replaced
 * before the bytes are read, reading fails with an {@link IOException} instead of mixing versions.
 * Failures while reading are {@link IOException}s whose message names the object.
 */
final class GcsObjectStream {

  private GcsObjectStream() {}

  /** Returns a download over {@code channel}; closing it closes the channel. Not thread-safe. */
  static ObjectStream of(StoredObject object, ReadChannel channel, String where) {
    String what = "object " + object.key() + " (generation " + object.version() + ") in " + where;
    return ObjectStream.of(object, new Translating(Channels.newInputStream(channel), what), channel::close);
  }

  /** Turns the client's unchecked failures into {@link IOException}s naming the object. */
  private static final class Translating extends FilterInputStream {

    private final String what;

    Translating(InputStream in, String what) {
      super(in);
      this.what = what;
    }

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
  }
}
