package dev.tierlock.spi;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * An open download of one object, for objects too large to read into memory. The stream yields
 * exactly the bytes of {@link #object()}'s version. Not thread-safe; close it.
 */
public interface ObjectStream extends AutoCloseable {

  /** {@return what the store said of the object when the download started} */
  StoredObject object();

  /** {@return the object's bytes; reading it may throw {@link IOException} on a network fault} */
  InputStream stream();

  /** Aborts or finishes the download and frees its connection. */
  @Override
  void close() throws IOException;

  /**
   * Returns a download over {@code stream}, whose {@link #close()} runs {@code onClose} (which
   * frees whatever the stream reads from: a channel, a connection).
   *
   * @param object what the store said of the object
   * @param stream the object's bytes
   * @param onClose what closing the download does
   * @return the download
   */
  static ObjectStream of(StoredObject object, InputStream stream, Closeable onClose) {
    return new ObjectStream() {
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
        onClose.close();
      }
    };
  }
}
