package dev.tierlock.spi;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The bytes of a write, of known length, that can be opened more than once (a backend may retry).
 * Implementations are immutable.
 */
public interface ObjectBody {

  /** {@return the length in bytes} */
  long size();

  /**
   * Opens a fresh stream over the bytes; the caller closes it.
   *
   * @return a new stream positioned at the first byte
   * @throws IOException if the bytes cannot be read
   */
  InputStream open() throws IOException;

  /**
   * {@return a body over a copy of {@code bytes}}
   *
   * @param bytes the body's bytes
   */
  static ObjectBody of(byte[] bytes) {
    byte[] copy = bytes.clone();
    return new ObjectBody() {
      @Override
      public long size() {
        return copy.length;
      }

      @Override
      public InputStream open() {
        return new ByteArrayInputStream(copy);
      }
    };
  }

  /**
   * {@return a body over a file, whose size is read now; the file must not change until the write
   * is over}
   *
   * @param file the file holding the body's bytes
   * @throws IOException if the file's size cannot be read
   */
  static ObjectBody of(Path file) throws IOException {
    long size = Files.size(file);
    return new ObjectBody() {
      @Override
      public long size() {
        return size;
      }

      @Override
      public InputStream open() throws IOException {
        return Files.newInputStream(file);
      }
    };
  }

  /**
   * Reads the whole body into memory.
   *
   * @return the body's bytes, a new array
   * @throws IOException if the bytes cannot be read
   */
  default byte[] readAllBytes() throws IOException {
    try (InputStream in = open()) {
      return in.readAllBytes();
    }
  }
}
