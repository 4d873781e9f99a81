package dev.tierlock.datastore.fs;

import dev.tierlock.spi.DatastoreIdentity;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The {@link DatastoreIdentity} of a filesystem datastore: scheme {@code file}, no container, the
 * root's real path as prefix, and as endpoint the root directory's {@link
 * BasicFileAttributes#fileKey()} text (device and inode on POSIX systems: a directory deleted and
 * created again at the same path is another store). Where the provider has no file key: the URI
 * of the file system's own root when it is not the default file system (a zip file, an in-memory
 * file system: two of them can hold the same path), otherwise empty (the path alone then names
 * the store, as on Windows).
 */
final class RootIdentity {

  /** The identity scheme of every filesystem datastore. */
  static final String SCHEME = "file";

  private RootIdentity() {}

  /**
   * Returns the identity of the datastore rooted at {@code realRoot}.
   *
   * @param realRoot the root's real path (links resolved), an existing directory
   * @throws IOException if the root's attributes cannot be read
   */
  static DatastoreIdentity of(Path realRoot) throws IOException {
    Object fileKey = Files.readAttributes(realRoot, BasicFileAttributes.class).fileKey();
    String endpoint;
    if (fileKey != null) {
      endpoint = fileKey.toString();
    } else if (realRoot.getFileSystem() != FileSystems.getDefault()) {
      Path top = realRoot.getRoot();
      endpoint = (top == null ? realRoot : top).toUri().toString();
    } else {
      endpoint = "";
    }
    return new DatastoreIdentity(SCHEME, printable(endpoint), "", printable(realRoot.toString()));
  }

  /**
   * Escapes control characters, which an identity never holds (a POSIX path may), as a backslash,
   * {@code u} and four hex digits, and each backslash as two, so that two different paths never
   * give the same text.
   */
  private static String printable(String text) {
    StringBuilder out = new StringBuilder(text.length());
    text.codePoints().forEach(c -> {
      if (c == '\\') {
        out.append("\\\\");
      } else if (c < 0x20 || c == 0x7f) {
        out.append(String.format("\\u%04x", c));
      } else {
        out.appendCodePoint(c);
      }
    });
    return out.toString();
  }
}
