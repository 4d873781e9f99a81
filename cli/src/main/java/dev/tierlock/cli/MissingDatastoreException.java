package dev.tierlock.cli;

import dev.tierlock.spi.DatastoreMissingException;
import java.net.URI;
import java.nio.file.Path;

/**
 * The command names a datastore that is not there: the library refused it ({@link
 * DatastoreMissingException}, the cause), and this says what to do on the command line. Nothing was
 * created: a read, or a path given by hand (perhaps mistyped), never creates a datastore. Code
 * {@value #CODE}, exit code 2.
 */
final class MissingDatastoreException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The stable code: the library's. */
  static final String CODE = DatastoreMissingException.CODE;

  MissingDatastoreException(URI uri, boolean embeddedDefault, DatastoreMissingException cause) {
    super(message(uri, embeddedDefault), cause);
  }

  /** Returns what the command line says of a missing datastore at {@code uri}. */
  static String message(URI uri, boolean embeddedDefault) {
    String at = "file".equalsIgnoreCase(uri.getScheme()) ? Path.of(uri).toString() : uri.toString();
    return embeddedDefault
        ? "Cannot read the embedded datastore at " + at + ": there is none yet (TIERLOCK_HOME is the directory it"
            + " lives in); the first 'tierlock entries put' creates it there, or run 'tierlock init'"
        : "Cannot open datastore " + at + ": no such directory; check the path, or create a datastore there with"
            + " 'tierlock init --datastore " + at + "'";
  }
}
