package dev.tierlock.install;

import org.jspecify.annotations.Nullable;

/**
 * The archive's manifest is not the extension asked for: another name, or, for an exact pin,
 * another version; or the archive has no readable manifest. Nothing was swapped or recorded.
 * Code {@code install_manifest_mismatch}.
 */
public final class ManifestMismatchException extends InstallException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "install_manifest_mismatch";

  /**
   * Creates the exception.
   *
   * @param extension the extension asked for
   * @param reason what the manifest says instead
   */
  public ManifestMismatchException(String extension, String reason) {
    this(extension, reason, null);
  }

  /**
   * Creates the exception with its cause.
   *
   * @param extension the extension asked for
   * @param reason what the manifest says instead, or why it cannot be read
   * @param cause the parse or read failure, if any
   */
  public ManifestMismatchException(String extension, String reason, @Nullable Throwable cause) {
    super(CODE, extension, "Cannot install " + extension + ": " + reason, cause);
  }
}
