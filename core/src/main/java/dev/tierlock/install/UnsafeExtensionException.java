package dev.tierlock.install;

import org.jspecify.annotations.Nullable;

/**
 * The embedding tool's {@link SafetyAnalyzer} refused the staged extension. Nothing was swapped or
 * recorded and the staging was discarded. Code {@code install_unsafe}.
 */
public final class UnsafeExtensionException extends InstallException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "install_unsafe";

  /**
   * Creates the exception (thrown by a {@link SafetyAnalyzer}).
   *
   * @param extension the extension analysed
   * @param reason what the analysis found
   * @param cause the analyser's own failure, if any
   */
  public UnsafeExtensionException(String extension, String reason, @Nullable Throwable cause) {
    super(CODE, extension, "Cannot install " + extension + ": the safety analysis refused it: " + reason, cause);
  }
}
