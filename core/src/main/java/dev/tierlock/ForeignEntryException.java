package dev.tierlock;

/**
 * A write (a put or a remove) targets a foreign member of the lockfile: a top-level member whose
 * value does not match the entry schema (see {@link Lockfile#foreign()}). Tierlock keeps such a
 * member byte for byte and never rewrites or drops it; only a hand edit of the file can change it.
 * Nothing was changed. Code {@code foreign_entry}.
 */
public final class ForeignEntryException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "foreign_entry";

  /** The key of the foreign member. */
  private final String key;
  /** Why the member is foreign. */
  private final String reason;

  /**
   * Creates the exception.
   *
   * @param verb what was refused, such as {@code put} or {@code remove}
   * @param key the member's key, as decoded from the file
   * @param reason why the member is foreign, one line
   */
  public ForeignEntryException(String verb, String key, String reason) {
    super(CODE, "Cannot " + verb + " lockfile entry " + key + ": the lockfile holds it as a foreign member ("
        + reason + "), kept byte for byte; only a hand edit of the file can change it");
    this.key = key;
    this.reason = reason;
  }

  /** {@return the key of the foreign member} */
  public String key() {
    return key;
  }

  /** {@return why the member is foreign} */
  public String reason() {
    return reason;
  }
}
