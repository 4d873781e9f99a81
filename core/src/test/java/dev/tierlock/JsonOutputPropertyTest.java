package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The byte writer writes exactly what the text writers of {@link JsonValue} write. */
class JsonOutputPropertyTest {

  private static final List<String> BASES = List.of("", "  ", "\t", "    ", " \t");
  private static final List<String> UNITS = List.of("  ", "\t", "    ", "");
  private static final List<String> EOLS = List.of("\n", "\r\n", "\r");

  @Provide
  Arbitrary<JsonValue> values() {
    return Arbitraries.randoms().map(r -> JsonValue.parse(GeneratedLockfile.compact(GeneratedLockfile.randomValue(r, 0))));
  }

  @Provide
  Arbitrary<LockfileEntry> entries() {
    return Arbitraries.randoms().map(r -> GeneratedEntry.random(r).toEntry());
  }

  @Provide
  Arbitrary<String> strings() {
    return Arbitraries.strings().all().ofMaxLength(40)
        .edgeCases(c -> c.add("\ud83d\ude00", "\ud800", "a\udc00b", "\u0000\u001f\u007f\u0080\u07ff\u0800\uffff"));
  }

  @Provide
  Arbitrary<List<String>> indentations() {
    return Arbitraries.randoms().map(r -> List.of(EOLS.get(r.nextInt(EOLS.size())), BASES.get(r.nextInt(BASES.size())),
        UNITS.get(r.nextInt(UNITS.size()))));
  }

  @Property(tries = 500)
  void quote_isJsonValueQuoteInUtf8(@ForAll("strings") String text) {
    StringBuilder expected = new StringBuilder();
    JsonValue.quote(text, expected);

    assertThat(new String(new JsonOutput(0).quote(text).toByteArray(), StandardCharsets.UTF_8))
        .isEqualTo(expected.toString());
  }

  @Property(tries = 300)
  void prettyAndCompact_areTheTextWritersInUtf8(@ForAll("values") JsonValue value) {
    for (String eol : EOLS) {
      StringBuilder expected = new StringBuilder();
      value.writePretty(expected, "\t", "  ", eol);

      assertThat(text(new JsonOutput(0).pretty(value, new JsonOutput.Indentation(eol, "\t", "  "), 0)))
          .isEqualTo(expected.toString());
    }
    assertThat(text(new JsonOutput(0).compact(value))).isEqualTo(value.toCompactString());
  }

  @Property(tries = 300)
  void entry_isItsJsonWrittenPretty(@ForAll("entries") LockfileEntry entry, @ForAll("indentations") List<String> layout) {
    JsonOutput out = new JsonOutput(0);
    LockfileCodec.writePretty(entry, out, new JsonOutput.Indentation(layout.get(0), layout.get(1), layout.get(2)));

    StringBuilder expected = new StringBuilder();
    entry.toJson().writePretty(expected, layout.get(1), layout.get(2), layout.get(0));
    assertThat(text(out)).isEqualTo(expected.toString());
  }

  private static String text(JsonOutput out) {
    return new String(out.toByteArray(), StandardCharsets.UTF_8);
  }
}
