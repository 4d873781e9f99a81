package dev.tierlock;

import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A value given to Tierlock breaks its rule: the caller fixes the input; nothing was changed. The
 * {@link #code()} says which rule:
 *
 * <ul>
 *   <li>{@value #INVALID_INPUT}: a value breaks its field's rule, such as a version, a checksum or
 *       a date given to {@link LockfileEntry.Builder} ({@link #input()} is the value);
 *   <li>{@value #INVALID_NAME}: a text is not an {@link ExtensionName} ({@link #input()} is the text);
 *   <li>{@value #UNKNOWN_SCHEME}: no datastore provider on the class path opens a URI's scheme; add
 *       the datastore module that provides it (for instance {@code tierlock-datastore-s3} for {@code
 *       s3://}); {@link #input()} is the URI, without credentials.
 * </ul>
 */
public final class InvalidInputException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The code of a value that breaks its field's rule (a version, a checksum, a date). */
  public static final String INVALID_INPUT = "invalid_input";

  /** The code of a text that is not an extension name. */
  public static final String INVALID_NAME = "invalid_name";

  /** The code of a datastore URI whose scheme no provider opens. */
  public static final String UNKNOWN_SCHEME = "unknown_scheme";

  /** The rejected input. */
  private final String input;

  private InvalidInputException(String code, String input, String message, @Nullable Throwable cause) {
    super(code, message, cause);
    this.input = input;
  }

  /**
   * {@return the failure for {@code input}, which is not an extension name ({@value #INVALID_NAME})}
   *
   * @param input the rejected text
   */
  public static InvalidInputException name(String input) {
    return new InvalidInputException(INVALID_NAME, input, "Cannot use extension name \"" + printable(input)
        + "\": a name matches " + ExtensionName.PATTERN.pattern() + " (lowercase letters, digits, '_' and '-', like"
        + " @scope/name) and has at most " + ExtensionName.MAX_LENGTH + " characters", null);
  }

  /**
   * {@return the failure for datastore {@code uri}, whose scheme no provider opens ({@value
   * #UNKNOWN_SCHEME})}
   *
   * @param uri the URI that could not be opened (without credentials)
   * @param known the schemes the providers found do open
   */
  public static InvalidInputException scheme(String uri, List<String> known) {
    return new InvalidInputException(UNKNOWN_SCHEME, uri, "Cannot open datastore " + uri + ": no datastore provider"
        + " handles its scheme; known schemes: " + (known.isEmpty()
            ? "none (add a tierlock-datastore-* module to the class path)" : String.join(", ", known)), null);
  }

  /**
   * {@return the failure for {@code input}, which breaks the rule of {@code field} ({@value
   * #INVALID_INPUT})}
   *
   * @param field the field or option the value was given for
   * @param input the rejected value
   * @param rule what the field accepts, as an instruction ("give ...")
   */
  public static InvalidInputException value(String field, String input, String rule) {
    return new InvalidInputException(INVALID_INPUT, input, "Cannot use " + field + " \"" + printable(input) + "\": "
        + rule, null);
  }

  /** {@return the rejected input: the text, or the URI without credentials} */
  public String input() {
    return input;
  }

  /** {@return the scheme of a rejected datastore URI, when that is the rule broken} */
  public Optional<String> scheme() {
    if (!code().equals(UNKNOWN_SCHEME)) {
      return Optional.empty();
    }
    int colon = input.indexOf(':');
    return colon > 0 ? Optional.of(input.substring(0, colon)) : Optional.empty();
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
