package dev.tierlock.install;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Picks the highest version a range accepts, for the directory registry, the install engine's
 * checks of constraint pins and {@link VersionConstraint#highest}: a small comparator over numeric dotted versions, not a full
 * implementation of any package manager's ranges. Stateless and thread-safe.
 *
 * <p><b>Versions</b>: {@code MAJOR[.MINOR[.PATCH]][-PRERELEASE][+BUILD]}, each number at most 18
 * digits (missing parts count as 0); pre-release identifiers are dot-separated {@code [0-9A-Za-z-]}
 * and ordered as semantic versioning orders them (a pre-release sorts below its release; build
 * metadata is ignored for order, ties are broken by the text). Anything else is not a version and
 * is ignored.
 *
 * <p><b>Ranges</b>: {@code *}, {@code x} or {@code latest} (the highest release, or the highest
 * pre-release when there is no release); comparators {@code >=V >V <V <=V =V V} with V full or
 * partial ({@code 1}, {@code 1.2}, {@code 1.x}); {@code ^V} (up to the next major, or for 0.x the
 * next minor, for 0.0.x the next patch) and {@code ~V} (up to the next minor, or the next major when
 * only the major is given). Comparators separated by white space must all hold; sets separated by
 * {@code ||} are alternatives. A pre-release is accepted only by a set that names a pre-release of
 * the same {@code MAJOR.MINOR.PATCH}. Hyphen ranges, commas and anything else are refused.
 */
final class VersionSelector {

  private static final Pattern VERSION = Pattern.compile(
      "(\\d{1,18})(?:\\.(\\d{1,18}))?(?:\\.(\\d{1,18}))?(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+[0-9A-Za-z.-]+)?");
  private static final Pattern PARTIAL = Pattern.compile(
      "v?(\\d{1,18}|[xX*])(?:\\.(\\d{1,18}|[xX*]))?(?:\\.(\\d{1,18}|[xX*]))?(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?"
          + "(?:\\+[0-9A-Za-z.-]+)?");
  private static final Pattern OPERATOR = Pattern.compile("(>=|<=|>|<|=|\\^|~)?(.*)");
  private static final String HELP = "use *, latest, 1.2.3, >=1.2 <2, ^1.2, ~1.2.3 or sets joined by ||";

  private VersionSelector() {}

  /**
   * Returns whether {@code text} is a version this selector orders.
   *
   * @param text the candidate
   * @return whether it parses as a version
   */
  static boolean isVersion(String text) {
    return Version.parse(text) != null;
  }

  /**
   * Returns the highest of {@code versions} that {@code range} accepts; texts that are not versions
   * are ignored.
   *
   * @param range the range, as described on the class
   * @param versions the candidates
   * @return the highest accepted, or empty when none is
   * @throws IllegalArgumentException if {@code range} is not a range this selector supports
   */
  static Optional<String> highest(String range, Collection<String> versions) {
    List<List<Condition>> sets = parse(range);
    Version best = null;
    for (String text : versions) {
      Version version = Version.parse(text);
      if (version != null && accepts(sets, version) && (best == null || version.compareWithText(best) > 0)) {
        best = version;
      }
    }
    if (best == null && sets.stream().anyMatch(List::isEmpty)) {
      // "*" and "latest" fall back to the highest pre-release when there is no release
      for (String text : versions) {
        Version version = Version.parse(text);
        if (version != null && (best == null || version.compareWithText(best) > 0)) {
          best = version;
        }
      }
    }
    return best == null ? Optional.empty() : Optional.of(best.text());
  }

  private static boolean accepts(List<List<Condition>> sets, Version version) {
    for (List<Condition> set : sets) {
      if (set.stream().allMatch(c -> c.test(version)) && (version.pre().isEmpty()
          || set.stream().anyMatch(c -> !c.bound().pre().isEmpty() && c.bound().sameRelease(version)))) {
        return true;
      }
    }
    return false;
  }

  private static List<List<Condition>> parse(String range) {
    String text = range.trim();
    List<List<Condition>> sets = new ArrayList<>();
    for (String set : text.split("\\|\\|", -1)) {
      sets.add(parseSet(range, set.trim()));
    }
    return sets;
  }

  private static List<Condition> parseSet(String range, String set) {
    if (set.isEmpty() || set.equals("latest")) {
      if (set.isEmpty() && !range.isBlank()) {
        throw unsupported(range, "an empty alternative");
      }
      return List.of();
    }
    List<String> tokens = new ArrayList<>();
    for (String token : set.split("\\s+")) {
      if (!tokens.isEmpty() && tokens.get(tokens.size() - 1).matches(">=|<=|>|<|=|\\^|~")) {
        tokens.set(tokens.size() - 1, tokens.get(tokens.size() - 1) + token); // ">= 1.2"
      } else {
        tokens.add(token);
      }
    }
    List<Condition> out = new ArrayList<>();
    for (String token : tokens) {
      out.addAll(comparators(range, token));
    }
    return out;
  }

  private static List<Condition> comparators(String range, String token) {
    Matcher op = OPERATOR.matcher(token);
    if (!op.matches()) {
      throw unsupported(range, "\"" + token + "\"");
    }
    String operator = op.group(1) == null ? "" : op.group(1);
    Matcher m = PARTIAL.matcher(op.group(2));
    if (!m.matches()) {
      throw unsupported(range, "\"" + token + "\"");
    }
    long[] parts = new long[3];
    int given = 0;
    for (int i = 0; i < 3; i++) {
      String part = m.group(i + 1);
      if (part == null || part.equalsIgnoreCase("x") || part.equals("*")) {
        break;
      }
      parts[i] = Long.parseLong(part);
      given++;
    }
    String pre = m.group(4) == null ? "" : m.group(4);
    if (!pre.isEmpty() && given < 3) {
      throw unsupported(range, "\"" + token + "\" (a pre-release needs MAJOR.MINOR.PATCH)");
    }
    Version low = new Version(parts[0], parts[1], parts[2], pre, token);
    if (given == 0) {
      if (operator.equals("<") || operator.equals(">")) {
        throw unsupported(range, "\"" + token + "\" (it accepts nothing)");
      }
      return List.of();
    }
    Version next = given == 1 ? release(parts[0] + 1, 0, 0) : release(parts[0], parts[1] + 1, 0);
    return switch (operator) {
      case "", "=" -> given == 3 ? List.of(new Condition(Op.EQ, low))
          : List.of(new Condition(Op.GE, low), new Condition(Op.LT, next));
      case ">=" -> List.of(new Condition(Op.GE, low));
      case ">" -> List.of(given == 3 ? new Condition(Op.GT, low) : new Condition(Op.GE, next));
      case "<" -> List.of(new Condition(Op.LT, low));
      case "<=" -> List.of(given == 3 ? new Condition(Op.LE, low) : new Condition(Op.LT, next));
      case "~" -> List.of(new Condition(Op.GE, low), new Condition(Op.LT, next));
      case "^" -> List.of(new Condition(Op.GE, low), new Condition(Op.LT, caret(parts, given)));
      default -> throw unsupported(range, "\"" + token + "\"");
    };
  }

  private static Version caret(long[] parts, int given) {
    if (parts[0] > 0 || given == 1) {
      return release(parts[0] + 1, 0, 0);
    }
    if (parts[1] > 0 || given == 2) {
      return release(0, parts[1] + 1, 0);
    }
    return release(0, 0, parts[2] + 1);
  }

  private static Version release(long major, long minor, long patch) {
    return new Version(major, minor, patch, "", major + "." + minor + "." + patch);
  }

  private static IllegalArgumentException unsupported(String range, String what) {
    return new IllegalArgumentException("Cannot resolve version range \"" + range + "\": " + what
        + " is not supported; " + HELP);
  }

  private enum Op { EQ, GE, GT, LT, LE }

  private record Condition(Op op, Version bound) {
    boolean test(Version version) {
      int c = version.compareTo(bound);
      return switch (op) {
        case EQ -> c == 0;
        case GE -> c >= 0;
        case GT -> c > 0;
        case LT -> c < 0;
        case LE -> c <= 0;
      };
    }
  }

  /** A parsed version; {@link #compareTo} is precedence (build metadata ignored), so two texts can compare equal. */
  private record Version(long major, long minor, long patch, String pre, String text) implements Comparable<Version> {

    private static final java.util.Comparator<Version> ORDER = java.util.Comparator.comparingLong(Version::major)
        .thenComparingLong(Version::minor)
        .thenComparingLong(Version::patch)
        .thenComparing(Version::pre, Version::comparePre);

    static @Nullable Version parse(String text) {
      Matcher m = VERSION.matcher(text);
      if (!m.matches()) {
        return null;
      }
      return new Version(Long.parseLong(m.group(1)), m.group(2) == null ? 0 : Long.parseLong(m.group(2)),
          m.group(3) == null ? 0 : Long.parseLong(m.group(3)), m.group(4) == null ? "" : m.group(4), text);
    }

    boolean sameRelease(Version other) {
      return major == other.major && minor == other.minor && patch == other.patch;
    }

    @Override
    public int compareTo(Version other) {
      return ORDER.compare(this, other);
    }

    /** Orders by precedence, then by text, so that a selection is the same whatever the order of the candidates. */
    int compareWithText(Version other) {
      int c = compareTo(other);
      return c != 0 ? c : text.compareTo(other.text);
    }

    private static int comparePre(String a, String b) {
      if (a.equals(b)) {
        return 0;
      }
      if (a.isEmpty() || b.isEmpty()) {
        return a.isEmpty() ? 1 : -1;
      }
      String[] x = a.split("\\.");
      String[] y = b.split("\\.");
      for (int i = 0; i < Math.min(x.length, y.length); i++) {
        int c = compareIdentifier(x[i], y[i]);
        if (c != 0) {
          return c;
        }
      }
      return Integer.compare(x.length, y.length);
    }

    private static int compareIdentifier(String a, String b) {
      boolean numericA = a.chars().allMatch(Character::isDigit);
      boolean numericB = b.chars().allMatch(Character::isDigit);
      if (numericA && numericB) {
        String x = a.replaceFirst("^0+(?=.)", "");
        String y = b.replaceFirst("^0+(?=.)", "");
        int c = Integer.compare(x.length(), y.length());
        return c != 0 ? c : x.compareTo(y);
      }
      if (numericA != numericB) {
        return numericA ? -1 : 1;
      }
      return a.compareTo(b);
    }
  }
}
