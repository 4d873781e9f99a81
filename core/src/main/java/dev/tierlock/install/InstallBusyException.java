package dev.tierlock.install;

import java.nio.file.Path;

/**
 * Another install or removal of the same extension on this checkout is in flight (swapped, not yet
 * committed) in a live process or thread: nothing was changed. Run it again once that one ends.
 * Code {@code install_busy}.
 */
public final class InstallBusyException extends InstallException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "install_busy";

  /**
   * Creates the exception.
   *
   * @param extension the extension
   * @param journal the journal of the install in flight
   */
  public InstallBusyException(String extension, Path journal) {
    super(CODE, extension, "Cannot install or remove " + extension + ": another install of it is in flight on this"
        + " checkout (journal " + journal + "); nothing was changed, run it again once that one ends", null);
  }
}
