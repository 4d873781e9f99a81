package dev.tierlock;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A lockfile text written the way assorted tools and hands write one, with what it holds: random
 * indentation (1 to 8 spaces or a tab), line endings, byte order mark, final newline; one-line
 * objects and one-line entries; unsorted {@code files}; unknown fields anywhere, with nested values,
 * number literals of every form, escapes, non-ASCII and lone surrogates; and foreign members. Written
 * by this class alone, never by the code under test.
 */
final class GeneratedLockfile {

  /** A number, written as its literal. */
  record Num(String literal) {}

  /**
   * One top-level member as written: {@code prefix json trail}.
   *
   * @param key the decoded key
   * @param prefix its lead (the whitespace before the key), key literal and colon
   * @param json the value's exact text
   * @param trail the whitespace after the value
   * @param entry what it holds, or null when it is foreign
   */
  record Member(String key, String prefix, String json, String trail, @Nullable GeneratedEntry entry) {
    String text() {
      return prefix + json + trail;
    }
  }

  static final List<String> NAMES = List.of("@s/a", "@s/b", "@s/c", "@s/d", "@t/a/b", "@x-y/z_1", "@0/9", "@s/e");
  static final List<String> FOREIGN_NAMES = List.of("@f/list", "@f/sum", "@f/nover", "@f/str", "@f/files");
  private static final List<String> INVALID_KEYS = List.of("lockfileVersion", "@Bad/Upper", "", "é/x");
  private static final List<String> STRINGS =
      List.of("a.ts", "z/y.ts", "models", "café", "日本", "😀x", "q\"uote", "back\\slash", "tab\tnl\n", "\u0001", "\ud800",
          "lone\udc00", "/slash/", "\u2028sep");
  private static final List<String> NUMBERS =
      List.of("-0", "1E+2", "2.50", "1e-7", "123456789012345678901234567890", "0", "-12.5e3", "3.0E-10", "7");
  private static final List<String> UNKNOWN = List.of("future", "x-meta", "ñame", "lockNote", "a\"b");

  final byte[] bytes;
  final List<Member> members;
  final boolean bom;
  final String eol;
  final boolean finalNewline;
  final String unit;
  final boolean oneLine;

  private GeneratedLockfile(byte[] bytes, List<Member> members, boolean bom, String eol, boolean finalNewline,
      String unit, boolean oneLine) {
    this.bytes = bytes;
    this.members = members;
    this.bom = bom;
    this.eol = eol;
    this.finalNewline = finalNewline;
    this.unit = unit;
    this.oneLine = oneLine;
  }

  /** Returns the keys of the foreign members. */
  Set<String> foreignKeys() {
    Set<String> out = new LinkedHashSet<>();
    members.stream().filter(m -> m.entry() == null).forEach(m -> out.add(m.key()));
    return out;
  }

  @Override
  public String toString() {
    return new String(bytes, StandardCharsets.UTF_8).replace("\r", "\\r").replace("\t", "\\t");
  }

  /** The formatting of one value. */
  private record Style(String unit, String eol, boolean pretty, String comma, String colon) {}

  static GeneratedLockfile generate(Random r) {
    boolean bom = r.nextInt(4) == 0;
    String eol = r.nextBoolean() ? "\n" : "\r\n";
    String unit = r.nextInt(5) == 0 ? "\t" : " ".repeat(1 + r.nextInt(8));
    boolean oneLine = r.nextInt(6) == 0;
    boolean finalNewline = r.nextInt(4) != 0;
    List<String> names = new ArrayList<>(NAMES);
    Collections.shuffle(names, r);
    List<Member> members = new ArrayList<>();
    int entries = r.nextInt(7);
    List<Object[]> planned = new ArrayList<>();
    for (int i = 0; i < entries; i++) {
      planned.add(new Object[] {names.get(i), GeneratedEntry.random(r)});
    }
    List<String> foreign = new ArrayList<>(FOREIGN_NAMES);
    foreign.addAll(INVALID_KEYS);
    Collections.shuffle(foreign, r);
    int foreignCount = r.nextBoolean() ? 1 + r.nextInt(2) : 0;
    for (int i = 0; i < foreignCount; i++) {
      planned.add(r.nextInt(planned.size() + 1), new Object[] {foreign.get(i), null});
    }
    StringBuilder doc = new StringBuilder(bom ? "\uFEFF" : "");
    doc.append(oneLine || r.nextInt(8) != 0 ? "" : eol).append('{');
    for (int i = 0; i < planned.size(); i++) {
      String key = (String) planned.get(i)[0];
      GeneratedEntry entry = (GeneratedEntry) planned.get(i)[1];
      Object value = entry == null ? foreignValue(key) : entry.document();
      boolean last = i + 1 == planned.size();
      String lead = oneLine ? (r.nextBoolean() ? "" : " ") : i > 0 && r.nextInt(10) == 0 ? " "
          : r.nextInt(10) == 0 ? eol + eol + unit : eol + unit;
      String colon = List.of(": ", ": ", ":", " : ", ":\t").get(r.nextInt(5));
      int style = oneLine ? 1 + r.nextInt(2) : r.nextInt(3) == 0 ? 1 + r.nextInt(2) : 0;
      Style s = new Style(unit, eol, style == 0, style == 1 ? ", " : ",", style == 1 ? ": " : ":");
      StringBuilder json = new StringBuilder();
      write(value, s, unit, json, r);
      String trail = last || r.nextInt(6) != 0 ? "" : " ";
      Member member = new Member(key, lead + quote(key, r) + colon, json.toString(), trail, entry);
      members.add(member);
      doc.append(i > 0 ? "," : "").append(member.text());
    }
    doc.append(planned.isEmpty() ? List.of("", " ", eol).get(r.nextInt(3)) : oneLine ? "" : eol).append('}');
    doc.append(finalNewline ? eol : "");
    return new GeneratedLockfile(doc.toString().getBytes(StandardCharsets.UTF_8), List.copyOf(members), bom, eol,
        finalNewline, unit, oneLine);
  }

  private static Object foreignValue(String key) {
    Map<String, Object> m = new LinkedHashMap<>();
    switch (key) {
      case "lockfileVersion" -> {
        return new Num("2");
      }
      case "@f/list" -> {
        return List.of(new Num("1"), "two", List.of());
      }
      case "@f/str" -> {
        return "1.0";
      }
      case "@f/nover" -> m.put("pulledAt", "t");
      case "@f/sum" -> {
        m.put("version", "1");
        m.put("pulledAt", "t");
        m.put("checksum", "ABC");
      }
      case "@f/files" -> {
        m.put("files", List.of("a", new Num("2")));
        m.put("version", "1");
        m.put("pulledAt", "t");
      }
      default -> {
        m.put("version", "1");
        m.put("pulledAt", "t");
        m.put("nested", Map.of("deep", List.of(Map.of())));
      }
    }
    return m;
  }

  /** Writes {@code value} in {@code s}, nested under a line indented by {@code indent}. */
  @SuppressWarnings("unchecked")
  private static void write(@Nullable Object value, Style s, String indent, StringBuilder out, @Nullable Random r) {
    if (value instanceof Map<?, ?> || value instanceof List<?>) {
      boolean map = value instanceof Map<?, ?>;
      List<Object> items = map ? new ArrayList<>(((Map<String, Object>) value).entrySet()) : (List<Object>) value;
      out.append(map ? '{' : '[');
      String inner = indent + s.unit();
      for (int i = 0; i < items.size(); i++) {
        out.append(i > 0 ? s.pretty() ? "," : s.comma() : "").append(s.pretty() ? s.eol() + inner : "");
        Object item = items.get(i);
        if (map) {
          Map.Entry<String, Object> e = (Map.Entry<String, Object>) item;
          out.append(quote(e.getKey(), r)).append(s.pretty() ? ": " : s.colon());
          item = e.getValue();
        }
        write(item, s, inner, out, r);
      }
      out.append(s.pretty() && !items.isEmpty() ? s.eol() + indent : "").append(map ? '}' : ']');
    } else if (value instanceof String str) {
      out.append(quote(str, r));
    } else if (value instanceof Num num) {
      out.append(num.literal());
    } else {
      out.append(value);
    }
  }

  /**
   * Returns {@code text} as a JSON string literal: escaped at random where JSON allows it, or, without
   * {@code r}, only where JSON requires it.
   */
  static String quote(String text, @Nullable Random r) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
      if (pair) {
        // a surrogate pair is written whole: both halves escaped, or the character as it is
        boolean escape = r != null && r.nextInt(6) == 0;
        out.append(escape ? escape(c, r) + escape(text.charAt(i + 1), r) : text.substring(i, i + 2));
        i++;
      } else if (c == '"' || c == '\\' || c < 0x20 || Character.isSurrogate(c) || (r != null && r.nextInt(12) == 0)) {
        out.append(escape(c, r));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }

  private static String escape(char c, @Nullable Random r) {
    String shortForm = switch (c) {
      case '"' -> "\\\"";
      case '\\' -> "\\\\";
      case '\n' -> "\\n";
      case '\t' -> "\\t";
      case '/' -> "\\/";
      default -> null;
    };
    if (shortForm != null && (r == null || r.nextBoolean())) {
      return shortForm;
    }
    String hex = String.format("%04x", (int) c);
    return "\\u" + (r == null || r.nextBoolean() ? hex : hex.toUpperCase(java.util.Locale.ROOT));
  }

  /** Writes {@code value} compactly, escaping only what JSON requires. */
  static String compact(@Nullable Object value) {
    StringBuilder out = new StringBuilder();
    write(value, new Style("", "", false, ",", ":"), "", out, null);
    return out.toString();
  }

  static String pick(List<String> from, Random r) {
    return from.get(r.nextInt(from.size()));
  }

  static Object randomValue(Random r, int depth) {
    int kind = r.nextInt(depth > 1 ? 5 : 7);
    return switch (kind) {
      case 0 -> new Num(pick(NUMBERS, r));
      case 1 -> pick(STRINGS, r);
      case 2 -> r.nextBoolean();
      case 3 -> new Num("null");
      case 4 -> pick(STRINGS, r) + pick(STRINGS, r);
      case 5 -> {
        List<Object> list = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
          list.add(randomValue(r, depth + 1));
        }
        yield list;
      }
      default -> {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = r.nextInt(4); i > 0; i--) {
          map.put(pick(UNKNOWN, r) + i, randomValue(r, depth + 1));
        }
        yield map;
      }
    };
  }

  static List<String> unknownNames() {
    return UNKNOWN;
  }

  static List<String> strings() {
    return STRINGS;
  }
}
