package dev.tierlock.cli;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreMissingException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.InvalidInputException;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.PendingChange;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.ManagedLockfileUnavailableException;
import dev.tierlock.install.InstallBusyException;
import dev.tierlock.install.InstallException;

/** The command line's exit codes, by what the caller can do next. */
final class ExitCodes {

  static final int OK = 0;
  static final int FAILURE = 1;
  static final int USAGE = 2;
  static final int NOT_FOUND = 3;
  static final int CONFLICT = 4;
  static final int UNAVAILABLE = 69;
  static final int TEMPORARY = 75;

  private ExitCodes() {}

  /** Maps a failure to its exit code. */
  static int of(Exception ex) {
    if (ex instanceof InvalidInputException || ex instanceof IllegalArgumentException
        || ex instanceof MissingDatastoreException || ex instanceof DatastoreMissingException) {
      return USAGE;
    }
    if (ex instanceof NotFoundException || hasCode(ex, InstallException.REGISTRY_NOT_FOUND)) {
      return NOT_FOUND;
    }
    if (hasCode(ex, InstallException.REGISTRY_UNAVAILABLE)) {
      return UNAVAILABLE;
    }
    if (ex instanceof LockfileConflictException) {
      return CONFLICT;
    }
    if (ex instanceof LockfileOutcomeUnknownException unknown) {
      // a write still in flight settles on the next run; a change in doubt waits for a person
      return unknown.pending().state() == PendingChange.State.IN_FLIGHT ? TEMPORARY : FAILURE;
    }
    if (ex instanceof LockTimeoutException || ex instanceof DatastoreBusyException || ex instanceof InstallBusyException
        || ex instanceof ManagedConfigUnpublishedException) {
      return TEMPORARY;
    }
    if (ex instanceof DatastoreUnavailableException || ex instanceof DatastoreUnsafeException
        || ex instanceof DatastoreAccessDeniedException || ex instanceof ManagedLockfileUnavailableException) {
      return UNAVAILABLE;
    }
    return FAILURE;
  }

  private static boolean hasCode(Exception ex, String code) {
    return ex instanceof InstallException install && install.code().equals(code);
  }
}
