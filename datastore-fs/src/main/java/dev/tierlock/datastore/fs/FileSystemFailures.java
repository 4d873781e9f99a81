package dev.tierlock.datastore.fs;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileLockInterruptionException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.ReadOnlyFileSystemException;
import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Translates every failure of the filesystem into Tierlock's datastore exceptions, in one place:
 *
 * <ul>
 *   <li>a full disk or exhausted quota: {@link DatastoreUnavailableException} whose message says so
 *       and that nothing changed (space runs out while the bytes are staged, before the target is
 *       touched, and a rename that finds no space does not happen);
 *   <li>{@link AccessDeniedException}, a {@link SecurityException}, or a read-only file system
 *       ({@link ReadOnlyFileSystemException}, {@code EROFS}): {@link DatastoreAccessDeniedException};
 *   <li>an interrupted channel ({@link ClosedByInterruptException} and its kin) while reading or
 *       before a change was published: {@link DatastoreUnavailableException} saying the thread was
 *       interrupted, with the thread's interrupt flag set again, so that callers can tell a
 *       cancellation from an outage;
 *   <li>a key another writer kept claimed past the lock timeout, or a claim taken over before its
 *       change was published: {@link DatastoreBusyException} naming the holder (nothing changed);
 *   <li>anything else while reading, locking or staging: {@link DatastoreUnavailableException};
 *   <li>anything else from the atomic move that publishes a change, or after it: {@link
 *       OutcomeUnknownException}, since the change may be visible.
 * </ul>
 *
 * Messages read {@code Cannot <verb> object <key> at <root>: <reason>} and keep the cause.
 * Immutable and thread-safe.
 */
final class FileSystemFailures {

  /** How far a change got when it failed; decides whether the outcome can be unknown. */
  enum Phase {
    /** Locking, reading the current object, staging bytes: the target is untouched. */
    PREPARE,
    /** The atomic move (or delete) that publishes the change was attempted and may have happened. */
    COMMIT,
    /** The change happened; forcing it to disk (or tidying up after it) failed. */
    DURABLE
  }

  private final String root;

  FileSystemFailures(String root) {
    this.root = root;
  }

  /**
   * Translates a failure of a call that changes nothing (a read, stat, list, or opening the root).
   *
   * @param verb what was being done ({@code read}, {@code list} ...)
   * @param what the object named in the message ({@code object config/x}, {@code prefix config/})
   */
  DatastoreException reading(String verb, String what, Exception e) {
    String prefix = "Cannot " + verb + " " + what + " at " + root + ": ";
    if (isInterruption(e)) {
      Thread.currentThread().interrupt();
      return new DatastoreUnavailableException(prefix + "the thread was interrupted (" + detail(e) + ")", e);
    }
    if (isReadOnly(e)) {
      return new DatastoreAccessDeniedException(prefix + "the file system is read-only (" + detail(e) + ")", e);
    }
    if (isAccessDenied(e)) {
      return new DatastoreAccessDeniedException(prefix + "access denied (" + detail(e) + ")", e);
    }
    return new DatastoreUnavailableException(prefix + detail(e), e);
  }

  /**
   * Translates a failure of a write or delete.
   *
   * @param verb {@code write} or {@code delete}
   * @param key the key the change was for
   * @param phase how far the change got
   */
  DatastoreException changing(String verb, String key, Phase phase, Exception e) {
    String prefix = "Cannot " + verb + " object " + key + " at " + root + ": ";
    if (isDiskFull(e) && phase != Phase.DURABLE) {
      return new DatastoreUnavailableException(prefix + "the disk is full (" + detail(e)
          + "); nothing changed, the object is untouched; free some space and retry", e);
    }
    if (isReadOnly(e) && phase != Phase.DURABLE) {
      return new DatastoreAccessDeniedException(prefix + "the file system is read-only (" + detail(e)
          + "); nothing changed", e);
    }
    if (isAccessDenied(e) && phase != Phase.DURABLE) {
      return new DatastoreAccessDeniedException(prefix + "access denied (" + detail(e) + "); nothing changed", e);
    }
    if (isInterruption(e) && phase == Phase.PREPARE) {
      Thread.currentThread().interrupt();
      return new DatastoreUnavailableException(prefix + "the thread was interrupted (" + detail(e) + "); nothing changed", e);
    }
    if (e instanceof AtomicMoveNotSupportedException) {
      return new DatastoreUnavailableException(prefix
          + "this filesystem cannot replace a file atomically, so it cannot hold a datastore; nothing changed", e);
    }
    return switch (phase) {
      case PREPARE -> new DatastoreUnavailableException(prefix + detail(e) + "; nothing changed", e);
      case COMMIT -> new OutcomeUnknownException(prefix + "the atomic " + (verb.equals("delete") ? "delete" : "move")
          + " failed and may have happened (" + detail(e) + "); read the object back before deciding", e);
      case DURABLE -> new OutcomeUnknownException(prefix + "the change is visible but forcing it to disk failed ("
          + detail(e) + "); it may not survive a crash, read the object back before deciding", e);
    };
  }

  /**
   * Returns the failure of a change whose key stayed claimed by another writer past the lock
   * timeout: a {@link DatastoreBusyException} (retry later), never an outage; nothing changed.
   *
   * @param waited the lock timeout
   * @param takeoverAfter the takeover bound, after which a claim seen unchanged is taken over
   * @param holder who held it, as its owner file or lock file names it ({@code pid 4242 on host h
   *     ...}), or null when it names nobody
   */
  DatastoreBusyException lockTimeout(String verb, String key, Duration waited, Duration takeoverAfter,
      @Nullable String holder) {
    return new DatastoreBusyException("Cannot " + verb + " object " + key + " at " + root
        + ": its lock stayed held by " + (holder == null ? "another writer" : holder) + " for " + waited
        + " (the lock timeout; a claim seen unchanged for " + takeoverAfter + " is taken over); nothing changed",
        null);
  }

  /**
   * Returns the failure of a change whose claim another writer took over before the change was
   * published (this writer stalled past the takeover bound): a {@link DatastoreBusyException}, since
   * nothing changed and a new attempt may succeed.
   */
  DatastoreBusyException takenOver(String verb, String key, IOException lost) {
    return new DatastoreBusyException("Cannot " + verb + " object " + key + " at " + root + ": "
        + lost.getMessage() + "; nothing changed", lost);
  }

  /** Returns the failure of a change whose wait for the key lock was interrupted; nothing changed. */
  DatastoreUnavailableException interrupted(String verb, String key, InterruptedException e) {
    return new DatastoreUnavailableException("Cannot " + verb + " object " + key + " at " + root
        + ": interrupted while waiting for its lock; nothing changed", e);
  }

  /**
   * Returns whether a failure (or any of its causes) reports a full disk or an exhausted quota:
   * {@code ENOSPC}, {@code EDQUOT}, or Windows' "not enough space on the disk".
   */
  static boolean isDiskFull(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String text = t instanceof FileSystemException fse && fse.getReason() != null
          ? fse.getReason() + " " + t.getMessage()
          : String.valueOf(t.getMessage());
      String lower = text.toLowerCase(Locale.ROOT);
      if (t instanceof IOException && (lower.contains("no space left") || lower.contains("enospc")
          || lower.contains("disk quota exceeded") || lower.contains("edquot")
          || lower.contains("not enough space on the disk"))) {
        return true;
      }
    }
    return false;
  }

  /** Returns whether a failure (or any of its causes) is an I/O call cut short by an interrupt. */
  static boolean isInterruption(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ClosedByInterruptException || t instanceof FileLockInterruptionException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns whether a failure (or any of its causes) is a write refused because the file system is
   * read-only: {@link ReadOnlyFileSystemException} from an NIO provider, or {@code EROFS}.
   */
  static boolean isReadOnly(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ReadOnlyFileSystemException || t instanceof FileSystemException fse
          && fse.getReason() != null && fse.getReason().toLowerCase(Locale.ROOT).contains("read-only file system")) {
        return true;
      }
    }
    return false;
  }

  private static boolean isAccessDenied(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof AccessDeniedException || t instanceof SecurityException) {
        return true;
      }
    }
    return false;
  }

  private static String detail(Throwable e) {
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }
}
