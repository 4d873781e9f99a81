package dev.tierlock.install;

/**
 * The shared lockfile changed between an extension's preparation and its apply, so what was
 * prepared is no longer what the request means: a restore prepared from a pin that a peer has since
 * replaced or removed (its archive may be gone from the tier). Nothing was changed; prepare again
 * ({@link Installer#install} does, once). Code {@code install_stale}.
 */
public final class InstallStaleException extends InstallException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "install_stale";

  /**
   * Creates the exception.
   *
   * @param extension the extension
   * @param reason what changed
   */
  public InstallStaleException(String extension, String reason) {
    super(CODE, extension, "Cannot apply the prepared " + extension + ": " + reason + "; nothing was changed, prepare"
        + " it again", null);
  }
}
