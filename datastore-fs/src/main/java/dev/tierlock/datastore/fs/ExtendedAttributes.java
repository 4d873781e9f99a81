package dev.tierlock.datastore.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.Arrays;

/**
 * A file's user-defined extended attributes ({@code user.<name>} on Linux), where the file system
 * keeps them: the datastore attaches an object's metadata to the very file that holds its bytes, so
 * the rename that publishes the bytes publishes the metadata with them. Stateless and thread-safe.
 */
final class ExtendedAttributes {

  /** The attribute that holds an object's metadata entry (a one-entry {@link Sidecar}). */
  static final String METADATA = "tierlock.metadata";

  /** The tries of a read the file system answers "try again" (EAGAIN, EINTR): a few, at once. */
  static final int READ_TRIES = 4;

  private ExtendedAttributes() {}

  /**
   * Writes an attribute.
   *
   * @return false when the file system keeps no such attributes (nothing was written)
   * @throws NoSuchFileException if there is no file
   * @throws IOException if writing fails for another reason
   */
  static boolean write(Path file, String name, byte[] value) throws IOException {
    UserDefinedFileAttributeView view = Files.getFileAttributeView(file, UserDefinedFileAttributeView.class);
    if (view == null) {
      return false;
    }
    try {
      view.write(name, ByteBuffer.wrap(value));
      return true;
    } catch (NoSuchFileException e) {
      throw e;
    } catch (UnsupportedOperationException e) {
      return false;
    } catch (FileSystemException e) {
      if (unsupported(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Reads an attribute, or returns no bytes when the file has none of that name, the file system
   * keeps no such attributes, or there is no file.
   *
   * @throws IOException if reading fails for another reason
   */
  static byte[] read(Path file, String name) throws IOException {
    UserDefinedFileAttributeView view = Files.getFileAttributeView(file, UserDefinedFileAttributeView.class);
    if (view == null) {
      return new byte[0];
    }
    return read(view, name);
  }

  /**
   * Reads attribute {@code name} through {@code view}, as {@link #read(Path, String)} does; a read
   * the file system answers "try again" (EAGAIN, EINTR) is tried again at once, up to {@link
   * #READ_TRIES} times in all, before its failure is thrown.
   */
  static byte[] read(UserDefinedFileAttributeView view, String name) throws IOException {
    for (int tried = 1; ; tried++) {
      try {
        return readOnce(view, name);
      } catch (FileSystemException e) {
        if (tried >= READ_TRIES || !answeredTryAgain(e)) {
          throw e;
        }
      }
    }
  }

  private static boolean answeredTryAgain(FileSystemException e) {
    String reason = String.valueOf(e.getReason());
    return reason.contains("temporarily unavailable") || reason.contains("Interrupted system call");
  }

  private static byte[] readOnce(UserDefinedFileAttributeView view, String name) throws IOException {
    try {
      ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
      int n = view.read(name, buffer);
      return Arrays.copyOf(buffer.array(), n);
    } catch (NoSuchFileException | UnsupportedOperationException e) {
      return new byte[0];
    } catch (FileSystemException e) {
      String reason = String.valueOf(e.getReason());
      if (unsupported(e) || reason.contains("No data") || reason.contains("not found")
          || reason.contains("Not a directory")) {
        return new byte[0];
      }
      throw e;
    }
  }

  private static boolean unsupported(FileSystemException e) {
    String reason = String.valueOf(e.getReason());
    // ENOTSUP, EPERM (no user attributes here), ENOSPC and E2BIG (a value over what the file system keeps)
    return reason.contains("not supported") || reason.contains("Operation not permitted")
        || reason.contains("No space left") || reason.contains("Argument list too long");
  }
}
