package dev.tierlock.archive;

/**
 * An archive holds a hostile or unsupported entry and was refused as a whole. A listing stopped; an
 * extraction removed everything it had written. Retrying does not help. Code {@code
 * archive_rejected}.
 */
public final class ArchiveRejectedException extends ArchiveException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "archive_rejected";

  /** The entry's name as the archive holds it. */
  private final String entry;
  /** The rule it broke. */
  private final ArchiveRule rule;

  /**
   * Creates the exception.
   *
   * @param source the archive's key or file
   * @param entry the entry's name as the archive holds it
   * @param rule the rule it broke
   * @param detail more about the entry, such as its link target; may be empty
   */
  public ArchiveRejectedException(String source, String entry, ArchiveRule rule, String detail) {
    super(CODE, source, "Cannot accept archive " + source + ": entry \"" + Printable.of(entry) + "\" breaks the rule "
        + rule.name() + " (" + rule.description() + ")" + (detail.isEmpty() ? "" : "; " + detail), null);
    this.entry = entry;
    this.rule = rule;
  }

  /** {@return the entry's name as the archive holds it (possibly holding control characters)} */
  public String entry() {
    return entry;
  }

  /** {@return the rule the entry broke} */
  public ArchiveRule rule() {
    return rule;
  }
}
