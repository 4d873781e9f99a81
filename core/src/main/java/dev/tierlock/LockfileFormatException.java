package dev.tierlock;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A lockfile (or another Tierlock JSON file) is not in the expected format: not UTF-8, malformed
 * JSON, not one object, a duplicate member name, or too large. (In the shared lockfile, a member
 * whose name or entry is invalid is not an error: it is kept as {@linkplain Lockfile#foreign()
 * foreign}.) Nothing was changed, and the file is never replaced by an empty one. Code {@code
 * lockfile_format}.
 */
public final class LockfileFormatException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "lockfile_format";

  /** The file or object the bytes came from. */
  private final String source;
  /** The 1-based line of the problem, or 0 when it has no position. */
  private final int line;
  /** The 1-based column of the problem, or 0 when it has no position. */
  private final int column;

  /**
   * Creates the exception.
   *
   * @param source the file or object the bytes came from
   * @param reason what is wrong
   * @param line the 1-based line of the problem, or 0 when it has no position
   * @param column the 1-based column of the problem, or 0 when it has no position
   * @param cause the parser's error, if any
   */
  public LockfileFormatException(String source, String reason, int line, int column, @Nullable Throwable cause) {
    super(CODE, "Cannot read lockfile " + source + ": " + reason
        + (line > 0 ? " (at line " + line + ", column " + column + ")" : ""), cause);
    this.source = source;
    this.line = line;
    this.column = column;
  }

  /** {@return the file or object the bytes came from} */
  public String source() {
    return source;
  }

  /** {@return the {@code line:column} of the problem, or empty when it has no position} */
  public Optional<String> position() {
    return line > 0 ? Optional.of(line + ":" + column) : Optional.empty();
  }
}
