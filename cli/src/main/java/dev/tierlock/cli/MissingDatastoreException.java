package dev.tierlock.cli;

import java.nio.file.Path;

/**
 * The command names a filesystem datastore whose directory does not exist. Nothing was created: a
 * read, or a path given by hand (perhaps mistyped), never creates a datastore. Code {@value #CODE},
 * exit code 2.
 */
final class MissingDatastoreException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  static final String CODE = "datastore_missing";

  MissingDatastoreException(Path root, boolean embeddedDefault) {
    super(embeddedDefault
        ? "Cannot read the embedded datastore at " + root + ": there is none yet (TIERLOCK_HOME is the directory it"
            + " lives in); the first 'tierlock entries put' creates it there, or run 'tierlock init'"
        : "Cannot open datastore " + root + ": no such directory; check the path, or create a datastore there with"
            + " 'tierlock init --datastore " + root + "'");
  }
}
