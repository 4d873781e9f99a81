package dev.tierlock.install;

import org.jspecify.annotations.Nullable;

/**
 * The extension registry could not be reached or answered with a passing failure (offline, a
 * timeout, a 5xx), or no registry was configured and the tier could not serve the extension.
 * Nothing was installed; retry when the registry is back. Code {@code registry_unavailable}.
 */
public final class RegistryUnavailableException extends InstallException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "registry_unavailable";

  /**
   * Creates the exception.
   *
   * @param extension the extension asked for
   * @param reason why, such as {@code connection refused}
   * @param cause the registry's own failure, if any
   */
  public RegistryUnavailableException(String extension, String reason, @Nullable Throwable cause) {
    super(CODE, extension, "Cannot reach the extension registry for " + extension + ": " + reason, cause);
  }
}
