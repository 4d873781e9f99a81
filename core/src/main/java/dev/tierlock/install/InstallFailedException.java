package dev.tierlock.install;

import org.jspecify.annotations.Nullable;

/**
 * A local step of an install or removal failed (a rename, a copy, a digest, the journal write) and
 * what it had done was undone: the extension is as it was before. Code {@code install_failed}.
 */
public final class InstallFailedException extends InstallException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "install_failed";

  /**
   * Creates the exception.
   *
   * @param extension the extension
   * @param reason what failed
   * @param cause the underlying failure
   */
  public InstallFailedException(String extension, String reason, @Nullable Throwable cause) {
    super(CODE, extension, "Cannot install " + extension + ": " + reason, cause);
  }
}
