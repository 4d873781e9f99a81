package dev.tierlock.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The command line's readers of what an operator types: each returns the value as stored, or throws
 * {@link IllegalArgumentException} naming the option, what was given and what is accepted. Every
 * argument is read before anything is opened or locked. Versions and checksums are read by
 * {@link dev.tierlock.LockfileEntry}'s own rules, the library's and the command line's alike.
 */
final class Inputs {

  private static final Pattern DURATION = Pattern.compile("([0-9]{1,9})(ms|s|m|h)");

  private Inputs() {}

  /**
   * Reads an instant: an ISO-8601 instant ({@code 2024-01-01T10:00:00Z}), a date-time with an
   * offset, or a date ({@code 2024-01-01}, its start in UTC).
   */
  static Instant instant(String option, String text) {
    String t = text.strip();
    try {
      return Instant.parse(t);
    } catch (DateTimeException notAnInstant) {
      // try the other forms
    }
    try {
      return OffsetDateTime.parse(t).toInstant();
    } catch (DateTimeException notAnOffsetTime) {
      // try a date
    }
    try {
      return LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant();
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("Cannot use " + option + " \"" + text + "\": give an ISO-8601 instant"
          + " (2024-01-01T10:00:00Z) or date (2024-01-01)", e);
    }
  }

  /** Reads a registry URL: absolute, http or https, with a host. */
  static String serverUrl(String text) {
    try {
      URI uri = new URI(text.strip());
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if ((scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null) {
        return text.strip();
      }
    } catch (URISyntaxException e) {
      // refused below
    }
    throw new IllegalArgumentException("Cannot use --server-url \"" + text + "\": give an http or https URL with a"
        + " host, like https://registry.example.com");
  }

  /** Reads a channel name: not blank, no whitespace or control characters. */
  static String channel(String text) {
    if (text.isEmpty() || text.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
      throw new IllegalArgumentException("Cannot use --channel \"" + text + "\": give a name without spaces, like beta");
    }
    return text;
  }

  /** Reads a duration: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or ISO-8601 ({@code PT90S}); positive. */
  static Duration duration(String option, String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    Duration value = null;
    var m = DURATION.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      value = switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    } else {
      try {
        value = Duration.parse(text.strip());
      } catch (DateTimeException e) {
        value = null;
      }
    }
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("Cannot use " + option + " \"" + text + "\": give a positive duration like"
          + " 30s, 2m, 500ms or PT90S");
    }
    return value;
  }
}
