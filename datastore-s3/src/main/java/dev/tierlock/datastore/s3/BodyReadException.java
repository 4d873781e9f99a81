package dev.tierlock.datastore.s3;

import java.io.IOException;

/**
 * Marks a failure to read the caller's own body while uploading it, so that the translator can tell
 * it from a network fault: the upload was cut short and the server stored nothing.
 */
final class BodyReadException extends IOException {

  private static final long serialVersionUID = 1L;

  /**
   * Wraps the body's failure.
   *
   * @param cause what reading the body threw
   */
  BodyReadException(IOException cause) {
    super("Cannot read the body to upload: " + cause.getMessage(), cause);
  }
}
