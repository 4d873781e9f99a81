package dev.tierlock.archive;

import java.time.Duration;

/**
 * A read did not finish within its deadline. The partial download was discarded and nothing was
 * cached; retry later. Code {@code archive_timeout}.
 */
public final class ArchiveTimeoutException extends ArchiveException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "archive_timeout";

  /** The deadline the read was given. */
  private final Duration timeout;

  /**
   * Creates the exception.
   *
   * @param key the archive being read
   * @param timeout the deadline the read was given
   */
  public ArchiveTimeoutException(ExtensionArchiveKey key, Duration timeout) {
    super(CODE, key.toString(), "Cannot read archive " + key + ": the read did not finish within "
        + timeout.toMillis() + " ms; nothing was cached", null);
    this.timeout = timeout;
  }

  /** {@return the deadline the read was given} */
  public Duration timeout() {
    return timeout;
  }
}
