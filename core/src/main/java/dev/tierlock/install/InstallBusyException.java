package dev.tierlock.install;

import java.nio.file.Path;

/**
 * The extension is being changed by someone else, so this call changed nothing, and the same call
 * can succeed if it is simply run again. Two codes:
 *
 * <ul>
 *   <li>{@value InstallException#BUSY}: another install or removal of the same extension on this
 *       checkout is in flight (swapped, not yet committed) in a live process or thread; run it again
 *       once that one ends.
 *   <li>{@value InstallException#STALE}: the shared lockfile changed between the extension's
 *       preparation and its apply, so what was prepared is no longer what the request means (a
 *       restore prepared from a pin a peer has since replaced or removed); prepare it again ({@link
 *       Installer#install} does, once).
 * </ul>
 *
 * <p>A type of its own, unlike the other install failures, because a caller acts on it apart: it
 * retries (the command line exits 75, "temporary"), where every other failure needs a person or
 * another input. Immutable once thrown.
 */
public final class InstallBusyException extends InstallException {

  private static final long serialVersionUID = 1L;

  private InstallBusyException(String code, String extension, String message) {
    super(code, extension, message, null, null);
  }

  /** Returns the failure of an install of {@code extension} while another, with {@code journal}, is in flight. */
  static InstallBusyException inFlight(String extension, Path journal) {
    return new InstallBusyException(BUSY, extension, "Cannot install or remove " + extension + ": another install of"
        + " it is in flight on this checkout (journal " + journal + "); nothing was changed, run it again once that"
        + " one ends");
  }

  /** Returns the failure of an apply of {@code extension} whose pin changed since its prepare ({@code reason}). */
  static InstallBusyException stale(String extension, String reason) {
    return new InstallBusyException(STALE, extension, "Cannot apply the prepared " + extension + ": " + reason
        + "; nothing was changed, prepare it again");
  }
}
