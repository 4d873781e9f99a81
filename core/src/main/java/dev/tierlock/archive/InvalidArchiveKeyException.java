package dev.tierlock.archive;

import dev.tierlock.TierlockException;
import org.jspecify.annotations.Nullable;

/**
 * A name and digest do not form a valid {@link ExtensionArchiveKey}. Nothing was changed. Code
 * {@code invalid_archive_key}.
 */
public final class InvalidArchiveKeyException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "invalid_archive_key";

  /** The rejected extension name text. */
  private final String name;
  /** The rejected digest text. */
  private final String sha256;

  /**
   * Creates the exception.
   *
   * @param name the rejected extension name text
   * @param sha256 the rejected digest text
   * @param reason why the pair was rejected
   * @param cause the underlying failure, if any
   */
  public InvalidArchiveKeyException(String name, String sha256, String reason, @Nullable Throwable cause) {
    super(CODE, "Cannot use archive key \"" + Printable.of(name) + "\" with SHA-256 \"" + Printable.of(sha256)
        + "\": " + reason, cause);
    this.name = name;
    this.sha256 = sha256;
  }

  /** {@return the rejected extension name text, unchanged} */
  public String name() {
    return name;
  }

  /** {@return the rejected digest text, unchanged} */
  public String sha256() {
    return sha256;
  }
}
