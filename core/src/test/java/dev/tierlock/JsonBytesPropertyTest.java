package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The reader of accepted bytes reads every value as the strict streaming parser does. */
class JsonBytesPropertyTest {

  private static final List<String> SPACES = List.of("", " ", "\n", "\r\n  ", "\t", " \n\t ");

  /** An object of random members, written with random whitespace and random (legal) escapes. */
  record Sample(String text) {
    @Override
    public String toString() {
      return text;
    }
  }

  @Provide
  Arbitrary<Sample> objects() {
    return Arbitraries.randoms().map(r -> {
      StringBuilder out = new StringBuilder("{");
      int n = r.nextInt(5);
      for (int i = 0; i < n; i++) {
        out.append(i > 0 ? "," : "").append(space(r)).append(GeneratedLockfile.quote(name(r, i), r)).append(space(r))
            .append(':').append(space(r));
        write(GeneratedLockfile.randomValue(r, 0), r, out);
        out.append(space(r));
      }
      return new Sample(out.append('}').toString());
    });
  }

  private static String name(Random r, int i) {
    List<String> names = new ArrayList<>(LockfileEntry.KNOWN_FIELDS);
    names.addAll(GeneratedLockfile.strings());
    return names.get(r.nextInt(names.size())) + (r.nextBoolean() ? "" : String.valueOf(i)) + "#" + i;
  }

  private static String space(Random r) {
    return SPACES.get(r.nextInt(SPACES.size()));
  }

  @SuppressWarnings("unchecked")
  private static void write(Object value, Random r, StringBuilder out) {
    if (value instanceof Map<?, ?> map) {
      out.append('{').append(space(r));
      int i = 0;
      for (Map.Entry<String, Object> e : ((Map<String, Object>) map).entrySet()) {
        out.append(i++ > 0 ? "," + space(r) : "").append(GeneratedLockfile.quote(e.getKey(), r)).append(space(r))
            .append(':').append(space(r));
        write(e.getValue(), r, out);
        out.append(space(r));
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[').append(space(r));
      for (int i = 0; i < list.size(); i++) {
        out.append(i > 0 ? "," + space(r) : "");
        write(list.get(i), r, out);
        out.append(space(r));
      }
      out.append(']');
    } else if (value instanceof String s) {
      out.append(GeneratedLockfile.quote(s, r));
    } else if (value instanceof GeneratedLockfile.Num num) {
      out.append(num.literal());
    } else {
      out.append(value);
    }
  }

  @Property(tries = 1000)
  void members_areWhatTheStreamingParserReads(@ForAll("objects") Sample sample) {
    String before = "\uFEFF  {\"x\": ";
    byte[] bytes = (before + sample.text() + "}").getBytes(StandardCharsets.UTF_8);
    JsonValue.Obj strict = (JsonValue.Obj) JsonValue.parse(sample.text());

    List<Map.Entry<String, JsonValue>> read = JsonBytes.members(bytes, before.getBytes(StandardCharsets.UTF_8).length);

    assertThat(read).extracting(Map.Entry::getKey).containsExactlyElementsOf(strict.members().keySet());
    assertThat(new JsonValue.Obj(toMap(read)).toCompactString()).isEqualTo(strict.toCompactString());
  }

  private static Map<String, JsonValue> toMap(List<Map.Entry<String, JsonValue>> members) {
    Map<String, JsonValue> map = new java.util.LinkedHashMap<>();
    members.forEach(m -> map.put(m.getKey(), m.getValue()));
    return map;
  }
}
