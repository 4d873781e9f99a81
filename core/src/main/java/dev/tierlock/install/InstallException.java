package dev.tierlock.install;

import dev.tierlock.TierlockException;
import java.nio.file.Path;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An extension could not be prepared, installed, removed or recovered. The stable {@link #code()}
 * says which case it is, and so what the caller can do next:
 *
 * <table class="striped">
 *   <caption>The codes of install failures</caption>
 *   <thead><tr><th>code</th><th>what happened</th><th>what to do next</th></tr></thead>
 *   <tbody>
 *   <tr><td>{@value #REGISTRY_UNAVAILABLE}</td><td>the registry could not be reached or answered with a
 *       passing failure (offline, a timeout, a 5xx), or none is configured and the tier could not serve
 *       the extension; nothing was installed</td><td>retry when the registry is back</td></tr>
 *   <tr><td>{@value #REGISTRY_NOT_FOUND}</td><td>the registry has no release matching the constraint;
 *       nothing was installed</td><td>check the name and the constraint</td></tr>
 *   <tr><td>{@value #MANIFEST_MISMATCH}</td><td>the archive's manifest is another extension, or (for an
 *       exact pin) another version, or cannot be read; nothing was swapped or recorded</td><td>nothing;
 *       the archive is not what was asked for</td></tr>
 *   <tr><td>{@value #UNSAFE}</td><td>the {@link SafetyAnalyzer} refused the staged files; nothing was
 *       swapped or recorded, the staging was discarded</td><td>nothing; the extension is refused</td></tr>
 *   <tr><td>{@value #JOURNAL_INVALID}</td><td>the journal of an interrupted install cannot be judged
 *       (unknown schema, paths outside its staging, another checkout's lockfile, unreadable): it and
 *       every file it names are left untouched ({@link #journal()}), and that extension is refused until
 *       an operator looks</td><td>an operator looks at the journal</td></tr>
 *   <tr><td>{@value #FAILED}</td><td>a local step (a rename, a copy, a digest, the journal write) failed
 *       and what it had done was undone: the extension is as it was</td><td>fix the local problem, then
 *       retry</td></tr>
 *   <tr><td>{@value #BUSY}, {@value #STALE}</td><td>see {@link InstallBusyException}</td><td>run the same
 *       call again</td></tr>
 *   </tbody>
 * </table>
 *
 * <p>One type for every case a caller acts on by its code; only {@link InstallBusyException} is a
 * type of its own, because it alone means "nothing was changed and the same call can succeed if it
 * is simply run again", which a caller handles apart (a retry, exit code 75) from every failure that
 * needs a person or another input. An archive's failure is an {@link
 * dev.tierlock.archive.ArchiveException}, a transaction's a {@link TierlockException}. Immutable
 * once thrown.
 */
public sealed class InstallException extends TierlockException permits InstallBusyException {

  private static final long serialVersionUID = 1L;

  /** The code of a registry that cannot answer now, or of no registry where one was needed. */
  public static final String REGISTRY_UNAVAILABLE = "registry_unavailable";

  /** The code of a registry without a matching release. */
  public static final String REGISTRY_NOT_FOUND = "registry_not_found";

  /** The code of an archive whose manifest is not the extension or version asked for. */
  public static final String MANIFEST_MISMATCH = "install_manifest_mismatch";

  /** The code of staged files the safety analysis refused. */
  public static final String UNSAFE = "install_unsafe";

  /** The code of the journal of an interrupted install that cannot be judged. */
  public static final String JOURNAL_INVALID = "install_journal_invalid";

  /** The code of another install or removal of the extension in flight ({@link InstallBusyException}). */
  public static final String BUSY = "install_busy";

  /** The code of a pin that changed since the prepare ({@link InstallBusyException}). */
  public static final String STALE = "install_stale";

  /** The code of a local step that failed and was undone. */
  public static final String FAILED = "install_failed";

  /** The extension the failure is about, as its scoped name (or what was given for one). */
  private final String extension;

  /** The journal left in place ({@link #JOURNAL_INVALID} only). */
  private final transient @Nullable Path journal;

  InstallException(String code, String extension, String message, @Nullable Throwable cause,
      @Nullable Path journal) {
    super(code, message, cause);
    this.extension = extension;
    this.journal = journal;
  }

  /**
   * {@return the failure of a registry that cannot answer now ({@value #REGISTRY_UNAVAILABLE})} What
   * an {@link ExtensionRegistry} throws when it is offline, times out or fails for a passing reason.
   *
   * @param extension the extension asked for
   * @param reason why, such as {@code connection refused}
   * @param cause the registry's own failure, if any
   */
  public static InstallException registryUnavailable(String extension, String reason, @Nullable Throwable cause) {
    return new InstallException(REGISTRY_UNAVAILABLE, extension, "Cannot reach the extension registry for "
        + extension + ": " + reason, cause, null);
  }

  /**
   * {@return the failure of a registry without a release of {@code extension} matching {@code
   * constraint} ({@value #REGISTRY_NOT_FOUND})} What an {@link ExtensionRegistry} throws.
   *
   * @param extension the extension asked for
   * @param constraint the version constraint asked for
   */
  public static InstallException registryNotFound(String extension, String constraint) {
    return registryNotFound(extension, constraint, "the extension registry");
  }

  /**
   * {@return the failure of {@code registry}, which has no release of {@code extension} matching
   * {@code constraint} ({@value #REGISTRY_NOT_FOUND}): the message names the registry}
   *
   * @param extension the extension asked for
   * @param constraint the version constraint asked for
   * @param registry the registry, as the operator knows it ("the directory registry /srv/registry")
   */
  public static InstallException registryNotFound(String extension, String constraint, String registry) {
    return new InstallException(REGISTRY_NOT_FOUND, extension, "Cannot find " + extension + "@" + constraint
        + " in " + registry, null, null);
  }

  /**
   * {@return the failure of a manifest that is not the extension asked for, or cannot be read
   * ({@value #MANIFEST_MISMATCH})} What {@link ExtensionLayout#readManifest} throws.
   *
   * @param extension the extension asked for
   * @param reason what the manifest says instead, or why it cannot be read
   * @param cause the parse or read failure, if any
   */
  public static InstallException manifestMismatch(String extension, String reason, @Nullable Throwable cause) {
    return new InstallException(MANIFEST_MISMATCH, extension, "Cannot install " + extension + ": " + reason, cause,
        null);
  }

  /**
   * {@return the failure of staged files the safety analysis refused ({@value #UNSAFE})} What a
   * {@link SafetyAnalyzer} throws.
   *
   * @param extension the extension analysed
   * @param reason what the analysis found
   * @param cause the analyser's own failure, if any
   */
  public static InstallException unsafe(String extension, String reason, @Nullable Throwable cause) {
    return new InstallException(UNSAFE, extension, "Cannot install " + extension + ": the safety analysis refused it: "
        + reason, cause, null);
  }

  /** Returns the failure of the journal {@code journal}, which cannot be judged ({@value #JOURNAL_INVALID}). */
  static InstallException journalInvalid(String extension, Path journal, String reason, @Nullable Throwable cause) {
    return new InstallException(JOURNAL_INVALID, extension, "Cannot recover the install journal " + journal + " of "
        + extension + ": " + reason + "; it and its staging are left as they are", cause, journal);
  }

  /** Returns the failure of a local step that failed and was undone ({@value #FAILED}). */
  static InstallException failed(String extension, String reason, @Nullable Throwable cause) {
    return new InstallException(FAILED, extension, "Cannot install " + extension + ": " + reason, cause, null);
  }

  /** {@return the extension the failure is about, as its scoped name (or what was given for one)} */
  public String extension() {
    return extension;
  }

  /** {@return the journal file left in place; present exactly for {@value #JOURNAL_INVALID}} */
  public Optional<Path> journal() {
    return Optional.ofNullable(journal);
  }
}
