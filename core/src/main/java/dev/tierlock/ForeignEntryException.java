package dev.tierlock;

/**
 * A write (put or remove) names a member of the shared lockfile that is not a valid entry: its key
 * is not an extension name, or its value does not match the entry schema. Such a member is kept
 * verbatim and listed as foreign; only a write to it is refused. Nothing changed.
 *
 * <p>Code {@code foreign_entry}.
 */
public final class ForeignEntryException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "foreign_entry";

  private final String name;

  /**
   * Creates an exception.
   *
   * @param verb what the write did ({@code set}, {@code remove})
   * @param name the member's key
   * @param reason why it is foreign
   */
  public ForeignEntryException(String verb, String name, String reason) {
    super(CODE, "Cannot " + verb + " entry " + name + ": the lockfile holds it as a foreign member (" + reason
        + "), kept as it is; fix or remove it by hand first");
    this.name = name;
  }

  /** {@return the member's key} */
  public String name() {
    return name;
  }
}
