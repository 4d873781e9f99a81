package dev.tierlock;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The shared lockfile (or another Tierlock JSON file), or the part of it a write targets, is not
 * what Tierlock can read or change: only a hand edit of the file fixes it. Nothing was changed, and
 * the file is never replaced. The {@link #code()} says which:
 *
 * <ul>
 *   <li>{@value #CODE}: the file is not UTF-8, is malformed JSON, is not one object, has a
 *       duplicate member name, or is too large ({@link #position()} says where, when it can);
 *   <li>{@value #FOREIGN_ENTRY}: a write (a put or a remove) targets a foreign member, a top-level
 *       member whose value does not match the entry schema ({@link Lockfile#foreign()}), which
 *       Tierlock keeps byte for byte and never rewrites or drops ({@link #foreignMember()} names it).
 * </ul>
 */
public final class LockfileFormatException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The code of a file that is not in the format. */
  public static final String CODE = "lockfile_format";

  /** The code of a write to a foreign member. */
  public static final String FOREIGN_ENTRY = "foreign_entry";

  /** The file or object the bytes came from. */
  private final String source;
  /** The 1-based line of the problem, or 0 when it has no position. */
  private final int line;
  /** The 1-based column of the problem, or 0 when it has no position. */
  private final int column;
  /** The foreign member a write targeted; null for a format failure. */
  private final @Nullable String member;
  /** Why that member is foreign; null for a format failure. */
  private final @Nullable String memberReason;

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
    this.member = null;
    this.memberReason = null;
  }

  private LockfileFormatException(String verb, String key, String reason) {
    super(FOREIGN_ENTRY, "Cannot " + verb + " lockfile entry " + key + ": the lockfile holds it as a foreign member ("
        + reason + "), kept byte for byte; only a hand edit of the file can change it");
    this.source = "the shared lockfile";
    this.line = 0;
    this.column = 0;
    this.member = key;
    this.memberReason = reason;
  }

  /**
   * {@return the failure of a write ({@code verb}: {@code put} or {@code remove}) to the foreign
   * member {@code key} ({@value #FOREIGN_ENTRY})}
   *
   * @param verb what was refused
   * @param key the member's key, as decoded from the file
   * @param reason why the member is foreign, one line
   */
  public static LockfileFormatException foreignEntry(String verb, String key, String reason) {
    return new LockfileFormatException(verb, key, reason);
  }

  /** {@return the file or object the bytes came from} */
  public String source() {
    return source;
  }

  /** {@return the key of the foreign member a write targeted ({@value #FOREIGN_ENTRY}), else empty} */
  public Optional<String> foreignMember() {
    return Optional.ofNullable(member);
  }

  /** {@return why the member a write targeted is foreign ({@value #FOREIGN_ENTRY}), else empty} */
  public Optional<String> foreignReason() {
    return Optional.ofNullable(memberReason);
  }

  /** {@return the {@code line:column} of the problem, or empty when it has no position} */
  public Optional<String> position() {
    return line > 0 ? Optional.of(line + ":" + column) : Optional.empty();
  }
}
