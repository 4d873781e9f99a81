package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.jspecify.annotations.Nullable;

class LockfileDocumentPropertyTest {

  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  /** A put (with an entry) or a remove (without one). */
  record Edit(ExtensionName name, @Nullable GeneratedEntry entry) {
    @Override
    public String toString() {
      return entry == null ? "remove " + name : "put " + name + " " + entry;
    }
  }

  @Provide
  Arbitrary<GeneratedLockfile> documents() {
    return Arbitraries.randoms().map(GeneratedLockfile::generate);
  }

  @Provide
  Arbitrary<List<Edit>> edits() {
    List<String> pool = new ArrayList<>(GeneratedLockfile.NAMES);
    pool.addAll(List.of("@n/new1", "@n/new2"));
    Arbitrary<Edit> edit = Arbitraries.randoms().map(r -> new Edit(ExtensionName.of(r.nextInt(4) == 0
        ? GeneratedLockfile.pick(GeneratedLockfile.FOREIGN_NAMES, r) : GeneratedLockfile.pick(pool, r)),
        r.nextInt(5) < 3 ? GeneratedEntry.random(r) : null));
    return edit.list().ofMaxSize(10);
  }

  @Provide
  Arbitrary<List<GeneratedEntry>> entryLists() {
    return Arbitraries.randoms().map(GeneratedEntry::random).list().ofMaxSize(6);
  }

  @Property(tries = 500)
  void parseThenBytes_untouched_isByteIdentical(@ForAll("documents") GeneratedLockfile doc) {
    Lockfile lockfile = Lockfile.parse(doc.bytes, "generated");

    assertThat(lockfile.bytes()).isEqualTo(doc.bytes);
    assertThat(lockfile.foreign()).extracting(Lockfile.Foreign::name).containsExactlyElementsOf(doc.foreignKeys());
    Statistics.label("foreign").collect(!doc.foreignKeys().isEmpty());
    Statistics.label("one-line").collect(doc.oneLine);
    Statistics.label("tab").collect(doc.unit.equals("\t"));
    Statistics.label("crlf").collect(doc.eol.equals("\r\n"));
    Statistics.label("bom").collect(doc.bom);
    Statistics.label("final newline").collect(doc.finalNewline);
    for (String label : List.of("foreign", "one-line", "tab", "crlf", "bom", "final newline")) {
      Statistics.label(label).coverage(c -> {
        c.check(true).percentage(p -> p > 5);
        c.check(false).percentage(p -> p > 5);
      });
    }
  }

  /** What the edits did so far, and the layout they write in. */
  private static final class Expected {
    final Map<ExtensionName, LockfileEntry> model = new LinkedHashMap<>();
    final Map<String, GeneratedEntry> written = new LinkedHashMap<>();
    final Set<String> removed = new HashSet<>();
    final Set<String> replaced = new HashSet<>();
    final Set<String> appended = new LinkedHashSet<>();
    boolean oneLine;
    String indent;
    final String eol;

    Expected(GeneratedLockfile doc) {
      doc.members.stream().filter(m -> m.entry() != null)
          .forEach(m -> model.put(ExtensionName.of(m.key()), m.entry().toEntry()));
      oneLine = doc.oneLine;
      indent = doc.members.isEmpty() || doc.oneLine ? "  " : doc.unit;
      eol = indexOf(doc.bytes, new byte[] {'\n'}, 0) >= 0 ? doc.eol : "\n";
    }
  }

  @Property(tries = 500)
  void edits_keepEveryOtherMemberByteForByte_andMatchTheModel(@ForAll("documents") GeneratedLockfile doc,
      @ForAll("edits") List<Edit> edits) {
    Lockfile lockfile = Lockfile.parse(doc.bytes, "generated");
    List<Lockfile.Foreign> foreign = lockfile.foreign();
    Expected expected = new Expected(doc);
    Set<String> original = new HashSet<>();
    doc.members.forEach(m -> original.add(m.key()));
    int refused = 0;

    for (Edit edit : edits) {
      Lockfile before = lockfile;
      ExtensionName name = edit.name();
      String key = name.value();
      GeneratedEntry generated = edit.entry();
      if (doc.foreignKeys().contains(key)) {
        assertThatThrownBy(() -> {
          if (generated == null) {
            before.without(name);
          } else {
            before.with(name, generated.toEntry());
          }
        }).isInstanceOf(LockfileFormatException.class)
            .hasMessageStartingWith("Cannot " + (generated == null ? "remove" : "put") + " lockfile entry " + name + ": ");
        refused++;
        continue;
      }
      if (generated == null) {
        boolean present = expected.model.remove(name) != null;
        lockfile = lockfile.without(name);
        if (present) {
          expected.removed.add(key);
          expected.appended.remove(key);
        } else {
          assertThat(lockfile).isSameAs(before);
        }
      } else {
        LockfileEntry entry = generated.toEntry();
        boolean present = expected.model.containsKey(name);
        boolean same = entry.equals(expected.model.put(name, entry));
        lockfile = lockfile.with(name, entry);
        if (same) {
          assertThat(lockfile).isSameAs(before);
          continue;
        }
        expected.written.put(key, generated);
        if (present && original.contains(key) && !expected.removed.contains(key)) {
          expected.replaced.add(key);
        } else if (!present) {
          if (before.isEmpty() && before.foreign().isEmpty()) {
            expected.oneLine = false;
          }
          expected.appended.add(key);
        }
      }
      checkAgainstModel(doc, expected, lockfile, foreign);
    }
    Statistics.label("replaced in place").collect(!expected.replaced.isEmpty());
    Statistics.label("appended").collect(!expected.appended.isEmpty());
    Statistics.label("removed").collect(!expected.removed.isEmpty());
    Statistics.label("refused").collect(refused > 0);
    for (String label : List.of("replaced in place", "appended", "removed", "refused")) {
      Statistics.label(label).coverage(c -> c.check(true).percentage(p -> p > 5));
    }
  }

  /**
   * Checks that untouched members keep their bytes, members replaced in place keep their key and
   * whitespace around a value formatted as JSON.stringify in the file's layout, appended members
   * follow in that layout, all in order; and that the bytes parse back to the model.
   */
  private static void checkAgainstModel(GeneratedLockfile doc, Expected expected, Lockfile lockfile,
      List<Lockfile.Foreign> foreign) {
    byte[] out = lockfile.bytes();
    List<String> pieces = new ArrayList<>();
    for (GeneratedLockfile.Member m : doc.members) {
      if (expected.removed.contains(m.key())) {
        continue;
      }
      if (expected.replaced.contains(m.key())) {
        pieces.add(m.prefix() + format(expected, expected.written.get(m.key())) + m.trail());
      } else {
        pieces.add(m.text());
      }
    }
    if (!expected.oneLine) {
      for (String key : expected.appended) {
        pieces.add(expected.eol + expected.indent + "\"" + key + "\": "
            + format(expected, expected.written.get(key)));
      }
    }
    int at = 0;
    for (String piece : pieces) {
      byte[] bytes = piece.getBytes(StandardCharsets.UTF_8);
      int found = indexOf(out, bytes, at);
      assertThat(found).as("%s, in order, in%n%s", show(bytes), show(out)).isGreaterThanOrEqualTo(0);
      at = found + bytes.length;
    }
    assertThat(startsWith(out, BOM)).isEqualTo(doc.bom);
    assertThat(endsWith(out, doc.eol.getBytes(StandardCharsets.UTF_8))).isEqualTo(doc.finalNewline);
    Lockfile again = Lockfile.parse(out, "edited");
    assertThat(again.entries()).isEqualTo(expected.model);
    assertThat(again.names()).containsExactlyElementsOf(expected.model.keySet());
    assertThat(lockfile.names()).containsExactlyElementsOf(expected.model.keySet());
    assertThat(again.foreign()).isEqualTo(foreign);
    assertThat(again.bytes()).isEqualTo(out);
  }

  /**
   * Returns how Tierlock should write {@code entry} as a top-level value: compact in a one-line
   * object, otherwise as JSON.stringify with the file's unit and line ending, nested one level (the
   * generator indents every top-level member by exactly one unit).
   */
  private static String format(Expected expected, GeneratedEntry entry) {
    Map<String, Object> value = entry.written();
    return expected.oneLine ? JsStringify.stringify(value, "")
        : JsStringify.stringify(value, expected.indent, expected.eol, expected.indent);
  }

  @Property(tries = 300)
  void freshDocument_isJsonStringifyWithTwoSpaces(@ForAll("entryLists") List<GeneratedEntry> entries) {
    Map<ExtensionName, LockfileEntry> model = new LinkedHashMap<>();
    Map<String, Object> written = new LinkedHashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      model.put(ExtensionName.of(GeneratedLockfile.NAMES.get(i)), entries.get(i).toEntry());
      written.put(GeneratedLockfile.NAMES.get(i), entries.get(i).written());
    }

    Lockfile fresh = Lockfile.of(model);
    Lockfile built = Lockfile.EMPTY;
    for (Map.Entry<ExtensionName, LockfileEntry> e : model.entrySet()) {
      built = built.with(e.getKey(), e.getValue());
    }

    String expected = JsStringify.stringify(written, "  ") + "\n";
    assertThat(fresh.text()).isEqualTo(expected);
    assertThat(fresh.bytes()).isEqualTo(expected.getBytes(StandardCharsets.UTF_8));
    assertThat(built.bytes()).isEqualTo(fresh.bytes());
    assertThat(LockfileCodec.encode(LockfileCodec.decode(fresh.bytes(), "fresh"))).isEqualTo(fresh.bytes());
  }

  private static int indexOf(byte[] hay, byte[] needle, int from) {
    for (int i = from; i + needle.length <= hay.length; i++) {
      if (Arrays.equals(hay, i, i + needle.length, needle, 0, needle.length)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean startsWith(byte[] b, byte[] prefix) {
    return b.length >= prefix.length && Arrays.equals(b, 0, prefix.length, prefix, 0, prefix.length);
  }

  private static boolean endsWith(byte[] b, byte[] suffix) {
    return b.length >= suffix.length && Arrays.equals(b, b.length - suffix.length, b.length, suffix, 0, suffix.length);
  }

  private static String show(byte[] b) {
    return new String(b, StandardCharsets.UTF_8).replace("\r", "\\r").replace("\t", "\\t");
  }

  /**
   * {@code JSON.stringify(value, null, gap)} as ECMA-262 defines it (SerializeJSONObject,
   * SerializeJSONArray, QuoteJSONString), over maps, lists, strings, booleans and number literals
   * (written as given); generalised to a line ending other than {@code \n} and to a value nested
   * under a line already indented by {@code indent}.
   */
  static final class JsStringify {

    private JsStringify() {}

    static String stringify(Object value, String gap) {
      return stringify(value, gap, "\n", "");
    }

    static String stringify(Object value, String gap, String eol, String indent) {
      StringBuilder out = new StringBuilder();
      serialize(value, gap, eol, indent, out);
      return out.toString();
    }

    private static void serialize(Object value, String gap, String eol, String indent, StringBuilder out) {
      if (value instanceof Map<?, ?> || value instanceof List<?>) {
        boolean object = value instanceof Map<?, ?>;
        String inner = indent + gap;
        List<String> parts = new ArrayList<>();
        if (object) {
          ((Map<?, ?>) value).forEach((k, v) -> {
            StringBuilder part = new StringBuilder();
            quote((String) k, part);
            part.append(gap.isEmpty() ? ":" : ": ");
            serialize(v, gap, eol, inner, part);
            parts.add(part.toString());
          });
        } else {
          for (Object item : (List<?>) value) {
            StringBuilder part = new StringBuilder();
            serialize(item, gap, eol, inner, part);
            parts.add(part.toString());
          }
        }
        out.append(object ? '{' : '[');
        if (!parts.isEmpty() && gap.isEmpty()) {
          out.append(String.join(",", parts));
        } else if (!parts.isEmpty()) {
          out.append(eol).append(inner).append(String.join("," + eol + inner, parts)).append(eol).append(indent);
        }
        out.append(object ? '}' : ']');
      } else if (value instanceof String s) {
        quote(s, out);
      } else if (value instanceof GeneratedLockfile.Num n) {
        out.append(n.literal());
      } else {
        out.append(value);
      }
    }

    private static void quote(String s, StringBuilder out) {
      out.append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c == '\b') {
          out.append("\\b");
        } else if (c == '\t') {
          out.append("\\t");
        } else if (c == '\n') {
          out.append("\\n");
        } else if (c == '\f') {
          out.append("\\f");
        } else if (c == '\r') {
          out.append("\\r");
        } else if (c == '"' || c == '\\') {
          out.append('\\').append(c);
        } else if (c < 0x20 || (Character.isHighSurrogate(c) && (i + 1 == s.length() || !Character.isLowSurrogate(s.charAt(i + 1))))
            || (Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1))))) {
          out.append("\\u").append(String.format("%04x", (int) c));
        } else {
          out.append(c);
        }
      }
      out.append('"');
    }
  }
}
