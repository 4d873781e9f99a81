package dev.tierlock;

import org.jspecify.annotations.Nullable;

/**
 * The root of every exception Tierlock throws. Unchecked. A type stands for what the caller can do
 * next (retry later, fix the input, fix the lockfile by hand, resolve a pending change...); its
 * stable {@link #code()} says which case it is, and each code belongs to one type. Programming
 * errors (a transaction started inside one on the same thread, locks taken out of order, a context
 * used after its change returned) are {@link IllegalStateException}s, not Tierlock exceptions.
 * Messages read {@code Cannot <verb> <object>: <reason>}, name the key or path involved and never
 * hold a secret. The cause is always kept.
 *
 * <p><b>Every code</b>, by what to do next:
 *
 * <table class="striped">
 *   <caption>Tierlock's error codes</caption>
 *   <thead><tr><th>code</th><th>type</th><th>meaning</th></tr></thead>
 *   <tbody>
 *   <tr><td>{@code lock_timeout}</td><td>{@link LockTimeoutException}</td><td>a lock stayed held past its wait; nothing changed; retry</td></tr>
 *   <tr><td>{@code lock_unreadable}</td><td>{@link LockUnreadableException}</td><td>a lock record cannot be read</td></tr>
 *   <tr><td>{@code managed_lockfile_unavailable}</td><td>{@link ManagedLockfileUnavailableException}</td><td>the shared lockfile could not be fetched or the lock taken, for a passing reason; nothing changed</td></tr>
 *   <tr><td>{@code managed_config_unpublished}</td><td>{@link ManagedConfigUnpublishedException}</td><td>the change did not land; it is saved and the next transaction publishes it</td></tr>
 *   <tr><td>{@code lockfile_outcome_unknown}</td><td>{@link LockfileOutcomeUnknownException}</td><td>a change may or may not have landed; kept, settled next time or by the caller</td></tr>
 *   <tr><td>{@code lockfile_conflict}</td><td>{@link LockfileConflictException}</td><td>another checkout changed the same entry; theirs is kept, the rest published</td></tr>
 *   <tr><td>{@code lockfile_format}</td><td>{@link LockfileFormatException}</td><td>the lockfile is not JSON or not an object; it is never replaced</td></tr>
 *   <tr><td>{@code foreign_entry}</td><td>{@link LockfileFormatException}</td><td>a write names a member that is not a valid entry; only a hand edit changes it</td></tr>
 *   <tr><td>{@code invalid_name}</td><td>{@link InvalidInputException}</td><td>not an extension name</td></tr>
 *   <tr><td>{@code unknown_scheme}</td><td>{@link InvalidInputException}</td><td>no datastore module for the URI's scheme</td></tr>
 *   <tr><td>{@code local_io}</td><td>{@link LocalFileException}</td><td>a file of the checkout could not be read or written</td></tr>
 *   <tr><td>{@code interrupted}</td><td>{@link InterruptedOperationException}</td><td>the thread was interrupted</td></tr>
 *   <tr><td>{@code datastore_unavailable}</td><td>{@link dev.tierlock.spi.DatastoreUnavailableException}</td><td>the store did not answer or refused for a passing reason; nothing changed</td></tr>
 *   <tr><td>{@code datastore_busy}</td><td>{@link dev.tierlock.spi.DatastoreBusyException}</td><td>the store's own lock on a key stayed held; nothing changed</td></tr>
 *   <tr><td>{@code outcome_unknown}</td><td>{@link dev.tierlock.spi.OutcomeUnknownException}</td><td>a change was sent and its answer lost</td></tr>
 *   <tr><td>{@code access_denied}</td><td>{@link dev.tierlock.spi.DatastoreAccessDeniedException}</td><td>the credentials may not do it</td></tr>
 *   <tr><td>{@code datastore_missing}</td><td>{@link dev.tierlock.spi.DatastoreMissingException}</td><td>no datastore where one was named (a mistyped path); nothing was created: fix the address, or create it on purpose</td></tr>
 *   <tr><td>{@code datastore_unsafe}</td><td>{@link dev.tierlock.spi.DatastoreUnsafeException}</td><td>the store does not honour preconditions; Tierlock writes nothing to it</td></tr>
 *   <tr><td>{@code object_too_large}</td><td>{@link dev.tierlock.spi.ObjectTooLargeException}</td><td>an object is over the read's bound</td></tr>
 *   <tr><td>{@code object_body_unreadable}</td><td>{@link dev.tierlock.spi.ObjectBodyUnreadableException}</td><td>the bytes of a write could not be read</td></tr>
 *   <tr><td>{@code archive_*}</td><td>{@link dev.tierlock.archive.ArchiveException}</td><td>an archive is over a cap, hostile, tampered, corrupt, missing or unreadable: see its {@code code()}</td></tr>
 *   <tr><td>{@code install_*}, {@code registry_*}</td><td>{@link dev.tierlock.install.InstallException}, {@link dev.tierlock.install.InstallBusyException} ({@code install_busy}, {@code install_stale}: run it again)</td><td>see its {@code code()}</td></tr>
 *   </tbody>
 * </table>
 */
public abstract class TierlockException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The stable code, lowercase with underscores. */
  private final String code;

  /**
   * Creates an exception.
   *
   * @param code the stable code, lowercase with underscores
   * @param message the message
   * @param cause the cause, if any
   */
  protected TierlockException(String code, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  /**
   * Creates an exception without a cause.
   *
   * @param code the stable code
   * @param message the message
   */
  protected TierlockException(String code, String message) {
    this(code, message, null);
  }

  /** {@return the stable code of this failure, such as {@code lock_timeout}} */
  public String code() {
    return code;
  }
}
