package dev.tierlock;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A scoped extension name: {@code @scope/name}, optionally followed by more {@code /segment}s;
 * lowercase ASCII letters, digits, {@code _} and {@code -}. Immutable; ordered by text.
 *
 * @param value the name text
 */
public record ExtensionName(String value) implements Comparable<ExtensionName> {

  /** The rule every name matches. */
  public static final Pattern PATTERN = Pattern.compile("^@[a-z0-9_-]+/[a-z0-9_-]+(/[a-z0-9_-]+)*$");

  /** The longest name accepted, in characters (keeps every derived key within store limits). */
  public static final int MAX_LENGTH = 214;

  /**
   * Validates the name.
   *
   * @param value the name text
   * @throws InvalidInputException ({@code invalid_name}) if the name does not match {@link #PATTERN} or is too long
   */
  public ExtensionName {
    if (value.length() > MAX_LENGTH || !PATTERN.matcher(value).matches()) {
      throw InvalidInputException.name(value);
    }
  }

  /**
   * Parses a name.
   *
   * @param value the name text
   * @return the name
   * @throws InvalidInputException ({@code invalid_name}) if the name breaks the rule
   */
  public static ExtensionName of(String value) {
    return new ExtensionName(value);
  }

  /**
   * {@return whether {@code value} is a valid name}
   *
   * @param value the text to check
   */
  public static boolean isValid(String value) {
    return value.length() <= MAX_LENGTH && PATTERN.matcher(value).matches();
  }

  @Override
  public int compareTo(ExtensionName other) {
    return value.compareTo(other.value);
  }

  // equals and hashCode written out: a record's own are made at their first call (a bootstrap that
  // spins classes no start-up archive holds), which every command line run pays
  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof ExtensionName name && value.equals(name.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return value;
  }
}
