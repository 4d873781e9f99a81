package dev.tierlock;

import org.jspecify.annotations.Nullable;

/**
 * The root of every exception Tierlock throws. Unchecked. Each subtype says what the caller can do
 * next; {@link #code()} is a stable identifier for scripts and logs. Messages read {@code Cannot
 * <verb> <object>: <reason>}, name the key or path involved and never hold a secret. The cause is
 * always kept.
 */
public class TierlockException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String code;

  /**
   * Creates an exception.
   *
   * @param code the stable code, lowercase with underscores
   * @param message the message
   * @param cause the cause, if any
   */
  public TierlockException(String code, String message, @Nullable Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  /**
   * Creates an exception without a cause.
   *
   * @param code the stable code
   * @param message the message
   */
  public TierlockException(String code, String message) {
    this(code, message, null);
  }

  /** Returns the stable code of this failure, such as {@code lock_timeout}. */
  public String code() {
    return code;
  }
}
