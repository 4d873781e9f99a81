package dev.tierlock.install;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * An install journal left by an interrupted install cannot be judged (unknown schema, paths
 * outside its staging, a lockfile path that is not this checkout's, unreadable): recovery left it
 * and every file it names untouched, and refuses to install or remove that extension until an
 * operator looks. Code {@code install_journal_invalid}.
 */
public final class InstallJournalException extends InstallException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "install_journal_invalid";

  private final transient Path journal;

  /**
   * Creates the exception.
   *
   * @param extension the extension the journal names, or {@code "(unknown)"}
   * @param journal the journal file
   * @param reason why it cannot be judged
   * @param cause the underlying failure, if any
   */
  public InstallJournalException(String extension, Path journal, String reason, @Nullable Throwable cause) {
    super(CODE, extension, "Cannot recover the install journal " + journal + " of " + extension + ": " + reason
        + "; it and its staging are left as they are", cause);
    this.journal = journal;
  }

  /** {@return the journal file left in place} */
  public Path journal() {
    return journal;
  }
}
