package dev.tierlock.install;

import dev.tierlock.TierlockException;
import org.jspecify.annotations.Nullable;

/**
 * An extension could not be prepared, installed, removed or recovered. The subtype says why and
 * what the caller can do next; each has its own stable code (see {@link dev.tierlock.install}).
 */
public abstract class InstallException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The extension the failure is about, as its scoped name (or what was given for one). */
  private final String extension;

  InstallException(String code, String extension, String message, @Nullable Throwable cause) {
    super(code, message, cause);
    this.extension = extension;
  }

  /** {@return the extension the failure is about, as its scoped name (or what was given for one)} */
  public String extension() {
    return extension;
  }
}
