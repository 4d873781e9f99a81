package dev.tierlock;

/**
 * A text is not a valid {@link ExtensionName}. Nothing was changed. Code {@code invalid_name}.
 */
public final class InvalidNameException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "invalid_name";

  /** The rejected text. */
  private final String input;

  /**
   * Creates the exception for one rejected text.
   *
   * @param input the rejected text
   */
  public InvalidNameException(String input) {
    super(CODE, "Cannot use extension name \"" + printable(input) + "\": a name matches "
        + ExtensionName.PATTERN.pattern() + " (lowercase letters, digits, '_' and '-', like @scope/name)"
        + " and has at most " + ExtensionName.MAX_LENGTH + " characters");
    this.input = input;
  }

  /** {@return the rejected text} */
  public String input() {
    return input;
  }

  private static String printable(String s) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length() && out.length() < 120; i++) {
      char c = s.charAt(i);
      out.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return out.toString();
  }
}
