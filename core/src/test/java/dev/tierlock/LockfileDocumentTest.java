package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class LockfileDocumentTest {

  private static final ExtensionName WEB = ExtensionName.of("@acme/web");
  private static final ExtensionName DB = ExtensionName.of("@acme/db");
  private static final ExtensionName API = ExtensionName.of("@acme/api");
  private static final String SHA = "a".repeat(64);
  private static final String T = "2026-01-01T00:00:00.000Z";
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  /** Written by an older tool: files unsorted, an unknown field first, a one-line entry. */
  private static final String OLD_TOOL = """
      {
        "@acme/web": {
          "future": {"n": [-0, 1E+2, 2.50, 1e-7, 123456789012345678901234567890]},
          "version": "1.0.0",
          "pulledAt": "2026-01-01T00:00:00.000Z",
          "files": [
            "z.ts",
            "a.ts"
          ]
        },
        "@acme/db": {"version": "2.0.0", "pulledAt": "2026-01-01T00:00:00.000Z", "files": ["b", "a"]},
        "@acme/api": {
          "version": "3.0.0",
          "pulledAt": "2026-01-01T00:00:00.000Z",
          "odd": "\\ud800 caf\\u00e9 café ✓ 😀"
        }
      }
      """;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, T).build();
  }

  private static Lockfile parse(String text) {
    return Lockfile.parse(utf8(text), "f.json");
  }

  private static int indexOf(byte[] hay, String needle) {
    byte[] n = utf8(needle);
    for (int i = 0; i + n.length <= hay.length; i++) {
      if (Arrays.equals(hay, i, i + n.length, n, 0, n.length)) {
        return i;
      }
    }
    throw new AssertionError("no " + needle + " in " + text(hay));
  }

  /** Asserts that {@code out} is {@code in} with bytes [from, to) replaced by {@code middle}, byte for byte. */
  private static void assertSpliced(byte[] in, byte[] out, int from, int to, String middle) {
    byte[] m = utf8(middle);
    byte[] expected = new byte[from + m.length + in.length - to];
    System.arraycopy(in, 0, expected, 0, from);
    System.arraycopy(m, 0, expected, from, m.length);
    System.arraycopy(in, to, expected, from + m.length, in.length - to);
    assertThat(text(out)).isEqualTo(text(expected));
    assertThat(out).isEqualTo(expected);
  }

  static Stream<String> untouchedSamples() {
    return Stream.of(
        OLD_TOOL,
        OLD_TOOL.replace("\n", "\r\n"),
        OLD_TOOL.replace("  ", "\t"),
        OLD_TOOL.strip(),
        "\uFEFF" + OLD_TOOL,
        "{}", "{}\n", "{ }", "{\n}\n", "  \n{\"@a/b\":{\"version\":\"1\",\"pulledAt\":\"t\"}}  \n\n",
        "{\"@a/b\": {\"version\": \"1\", \"pulledAt\": \"t\"} , \"lockfileVersion\": 2}",
        "{\n\"@a/b\" :\t{ \"pulledAt\" : \"t\" , \"version\" : \"1\" }\n,\n\"x\": [1, {\"y\": null}]\n}\n");
  }

  @ParameterizedTest
  @MethodSource("untouchedSamples")
  void parseThenBytes_untouched_isTheInputByteForByte(String sample) {
    byte[] in = utf8(sample);

    Lockfile lockfile = Lockfile.parse(in, "f.json");

    assertThat(lockfile.bytes()).isEqualTo(in);
    assertThat(LockfileCodec.encode(LockfileCodec.decode(in, "f.json"))).isEqualTo(in);
  }

  @Test
  void parse_copiesItsInput() {
    byte[] in = utf8("{}\n");
    Lockfile lockfile = Lockfile.parse(in, "f.json");
    in[0] = '[';

    assertThat(lockfile.bytes()).isEqualTo(utf8("{}\n"));
  }

  @Test
  void parse_readsTheModelAsBefore() {
    Lockfile lockfile = parse(OLD_TOOL);

    assertThat(lockfile.names()).containsExactly(WEB, DB, API);
    assertThat(lockfile.entry(WEB).orElseThrow().files()).containsExactly("a.ts", "z.ts");
    assertThat(lockfile.entry(WEB).orElseThrow().unknownFields())
        .containsEntry("future", "{\"n\":[-0,1E+2,2.50,1e-7,123456789012345678901234567890]}");
    assertThat(lockfile.entry(API).orElseThrow().unknownFields()).containsEntry("odd", "\"\\ud800 café café ✓ 😀\"");
    assertThat(lockfile.foreign()).isEmpty();
  }

  @Test
  void with_unrelatedName_appendsAndLeavesEveryOtherByte() {
    byte[] in = utf8(OLD_TOOL);
    int end = in.length - "\n}\n".length();

    byte[] out = Lockfile.parse(in, "f.json").with(ExtensionName.of("@acme/new"), entry("4.0.0")).bytes();

    assertSpliced(in, out, end, end, """
        ,
          "@acme/new": {
            "version": "4.0.0",
            "pulledAt": "2026-01-01T00:00:00.000Z"
          }""");
  }

  @Test
  void with_inATabCrlfBomFileWithoutFinalNewline_writesInThatLayout() {
    String tabbed = OLD_TOOL.strip().replace("  ", "\t").replace("\n", "\r\n");
    byte[] in = new byte[BOM.length + utf8(tabbed).length];
    System.arraycopy(BOM, 0, in, 0, BOM.length);
    System.arraycopy(utf8(tabbed), 0, in, BOM.length, in.length - BOM.length);
    int end = in.length - "\r\n}".length();
    LockfileEntry entry = LockfileEntry.builder("4.0.0", T).files(List.of("y", "x")).build();

    Lockfile lockfile = Lockfile.parse(in, "f.json").with(ExtensionName.of("@acme/new"), entry);

    assertSpliced(in, lockfile.bytes(), end, end, ",\r\n\t\"@acme/new\": {\r\n\t\t\"version\": \"4.0.0\",\r\n"
        + "\t\t\"pulledAt\": \"2026-01-01T00:00:00.000Z\",\r\n\t\t\"files\": [\r\n\t\t\t\"x\",\r\n\t\t\t\"y\"\r\n\t\t]\r\n\t}");
    assertThat(lockfile.text()).doesNotStartWith("\uFEFF").startsWith("{\r\n\t\"@acme/web\"");
    assertThat(lockfile.bytes()).startsWith(BOM);
  }

  @Test
  void with_existingName_replacesOnlyTheValueBytes() {
    byte[] in = utf8(OLD_TOOL);
    int from = indexOf(in, "{\"version\": \"2.0.0\"");
    int to = indexOf(in, "\"a\"]}") + "\"a\"]}".length();
    LockfileEntry entry = LockfileEntry.builder("2.1.0", T).files(List.of("b", "a")).checksum(SHA).build();

    byte[] out = Lockfile.parse(in, "f.json").with(DB, entry).bytes();

    assertSpliced(in, out, from, to, """
        {
            "version": "2.1.0",
            "pulledAt": "2026-01-01T00:00:00.000Z",
            "files": [
              "a",
              "b"
            ],
            "checksum": "%s"
          }""".formatted(SHA));
  }

  @Test
  void with_equalEntry_returnsTheSameLockfileAndBytes() {
    Lockfile lockfile = parse(OLD_TOOL);
    LockfileEntry same = LockfileEntry.builder("2.0.0", T).files(List.of("a", "b")).build();

    assertThat(lockfile.with(DB, same)).isSameAs(lockfile);
    assertThat(lockfile.with(DB, same).bytes()).isEqualTo(utf8(OLD_TOOL));
  }

  @Test
  void without_firstMiddleLastAndOnly_removeTheMemberAndOneComma() {
    byte[] in = utf8(OLD_TOOL);
    Lockfile lockfile = Lockfile.parse(in, "f.json");
    int web = indexOf(in, "\n  \"@acme/web\"");
    int db = indexOf(in, "\n  \"@acme/db\"");
    int api = indexOf(in, "\n  \"@acme/api\"");
    int end = in.length - "\n}\n".length();

    assertSpliced(in, lockfile.without(WEB).bytes(), web, db, "");
    assertSpliced(in, lockfile.without(DB).bytes(), db - 1, api - 1, "");
    assertSpliced(in, lockfile.without(API).bytes(), api - 1, end, "");
    assertThat(lockfile.without(WEB).without(DB).without(API).text()).isEqualTo("{}\n");
    assertThat(lockfile.without(ExtensionName.of("@acme/none"))).isSameAs(lockfile);
  }

  @Test
  void without_thenWith_keepsTheDetectedLayout() {
    String tabbed = "{\r\n\t\"@a/b\": {\"version\": \"1\", \"pulledAt\": \"t\"}\r\n}";

    Lockfile emptied = parse(tabbed).without(ExtensionName.of("@a/b"));

    assertThat(emptied.text()).isEqualTo("{}");
    assertThat(emptied.with(ExtensionName.of("@a/c"), entry("2")).text())
        .isEqualTo("{\r\n\t\"@a/c\": {\r\n\t\t\"version\": \"2\",\r\n\t\t\"pulledAt\": \"" + T + "\"\r\n\t}\r\n}");
  }

  @Test
  void with_intoAnEmptyObject_usesTwoSpacesAndTheDetectedLineEnding() {
    String expected = "{\n  \"@a/c\": {\n    \"version\": \"2\",\n    \"pulledAt\": \"" + T + "\"\n  }\n}";

    assertThat(parse("{}").with(ExtensionName.of("@a/c"), entry("2")).text()).isEqualTo(expected);
    assertThat(parse("{ }\n").with(ExtensionName.of("@a/c"), entry("2")).text()).isEqualTo(expected + "\n");
    assertThat(parse("{}\r\n").with(ExtensionName.of("@a/c"), entry("2")).text())
        .isEqualTo(expected.replace("\n", "\r\n") + "\r\n");
  }

  @Test
  void freshDocument_isJsonStringifyAndEqualsEditsFromEmpty() {
    Map<ExtensionName, LockfileEntry> map = new LinkedHashMap<>();
    map.put(WEB, LockfileEntry.builder("1", T).files(List.of("z", "a")).unknownField("x", "{\"b\":[],\"a\":{}}").build());
    map.put(DB, entry("2"));

    Lockfile fresh = Lockfile.of(map);

    assertThat(fresh.text()).isEqualTo("{\n  \"@acme/web\": {\n    \"version\": \"1\",\n    \"pulledAt\": \"" + T + "\",\n"
        + "    \"files\": [\n      \"a\",\n      \"z\"\n    ],\n    \"x\": {\n      \"b\": [],\n      \"a\": {}\n    }\n  },\n"
        + "  \"@acme/db\": {\n    \"version\": \"2\",\n    \"pulledAt\": \"" + T + "\"\n  }\n}\n");
    assertThat(Lockfile.EMPTY.with(WEB, map.get(WEB)).with(DB, map.get(DB)).bytes()).isEqualTo(fresh.bytes());
    assertThat(Lockfile.EMPTY.bytes()).isEqualTo(utf8("{}\n"));
  }

  @Test
  void oneLineTopLevelObject_staysOnOneLine() {
    String one = "{\"@a/b\": {\"version\": \"1\", \"pulledAt\": \"t\"}, \"@a/c\": {\"version\": \"2\", \"pulledAt\": \"t\"}}\n";
    Lockfile lockfile = parse(one);
    LockfileEntry entry = LockfileEntry.builder("3", "t").files(List.of("b", "a")).build();

    assertThat(lockfile.with(ExtensionName.of("@a/d"), entry).text()).isEqualTo("{\"@a/b\": {\"version\": \"1\", "
        + "\"pulledAt\": \"t\"}, \"@a/c\": {\"version\": \"2\", \"pulledAt\": \"t\"}, \"@a/d\": {\"version\":\"3\","
        + "\"pulledAt\":\"t\",\"files\":[\"a\",\"b\"]}}\n");
    assertThat(lockfile.with(ExtensionName.of("@a/b"), entry).text())
        .isEqualTo("{\"@a/b\": {\"version\":\"3\",\"pulledAt\":\"t\",\"files\":[\"a\",\"b\"]}, \"@a/c\": {\"version\": \"2\", "
            + "\"pulledAt\": \"t\"}}\n");
    assertThat(lockfile.without(ExtensionName.of("@a/b")).text()).isEqualTo("{ \"@a/c\": {\"version\": \"2\", \"pulledAt\": \"t\"}}\n");
    assertThat(parse("{\"@a/b\":{\"version\":\"1\",\"pulledAt\":\"t\"}}").with(ExtensionName.of("@a/c"), entry("2")).text())
        .isEqualTo("{\"@a/b\":{\"version\":\"1\",\"pulledAt\":\"t\"},\"@a/c\":{\"version\":\"2\",\"pulledAt\":\"" + T + "\"}}");
  }

  @Test
  void edit_copiesUntouchedMembersWithoutReserialisingThem() {
    Map<ExtensionName, LockfileEntry> many = new LinkedHashMap<>();
    for (int i = 0; i < 5_000; i++) {
      many.put(ExtensionName.of("@s" + i + "/n"), LockfileEntry.builder("1." + i, T).files(List.of("b" + i, "a" + i)).build());
    }
    byte[] in = Lockfile.of(many).bytes();
    Lockfile parsed = Lockfile.parse(in, "big.json");
    ExtensionName middle = ExtensionName.of("@s2500/n");

    Lockfile edited = parsed.with(middle, entry("9")).without(ExtensionName.of("@s0/n")).with(ExtensionName.of("@x/new"), entry("1"));

    List<LockfileDocument.Member> before = parsed.document().members();
    List<LockfileDocument.Member> after = edited.document().members();
    assertThat(after).hasSize(5_000);
    for (int i = 1; i < 5_000; i++) {
      if (i != 2500) {
        assertThat(after.get(i - 1)).isSameAs(before.get(i));
      }
    }
    assertThat(after.get(2499).value()).isNotSameAs(before.get(2500).value());
    assertThat(after.get(2499).lead()).isSameAs(before.get(2500).lead());
    assertThat(Lockfile.parse(edited.bytes(), "edited").entries()).isEqualTo(edited.entries());
  }

  private static final String WITH_FOREIGN = """
      {
        "lockfileVersion": 2,
        "@Acme/Upper": {"version": "1", "pulledAt": "t"},
        "@acme/web": {"version": "1", "pulledAt": "t"},
        "@acme/list": ["not", "an", "entry"],
        "@acme/sum": {"version": "1", "pulledAt": "t", "checksum": "ABC"}
      }
      """;

  @Test
  void foreignMembers_areListedWithReasonAndRawJson() {
    Lockfile lockfile = parse(WITH_FOREIGN);

    assertThat(lockfile.names()).containsExactly(WEB);
    assertThat(lockfile.foreign()).extracting(Lockfile.Foreign::name)
        .containsExactly("lockfileVersion", "@Acme/Upper", "@acme/list", "@acme/sum");
    assertThat(lockfile.foreign()).extracting(Lockfile.Foreign::json)
        .containsExactly("2", "{\"version\": \"1\", \"pulledAt\": \"t\"}", "[\"not\", \"an\", \"entry\"]",
            "{\"version\": \"1\", \"pulledAt\": \"t\", \"checksum\": \"ABC\"}");
    assertThat(lockfile.foreign().get(0).reason()).startsWith("the key is not a valid extension name");
    assertThat(lockfile.foreign().get(2).reason()).isEqualTo("the entry of @acme/list must be a JSON object, found an array");
    assertThat(lockfile.foreign().get(3).reason()).isEqualTo("field \"checksum\" of @acme/sum is invalid: checksum must be"
        + " exactly 64 lowercase hex digits (a SHA-256), got \"ABC\"");
    assertThat(lockfile.contains(ExtensionName.of("@acme/sum"))).isFalse();
  }

  @Test
  void foreignMembers_surviveWritesByteForByte() {
    byte[] in = utf8(WITH_FOREIGN);
    int web = indexOf(in, "{\"version\": \"1\", \"pulledAt\": \"t\"},\n  \"@acme/list\"");
    int end = in.length - "\n}\n".length();

    Lockfile lockfile = Lockfile.parse(in, "f.json");

    assertSpliced(in, lockfile.with(API, entry("9")).bytes(), end, end,
        ",\n  \"@acme/api\": {\n    \"version\": \"9\",\n    \"pulledAt\": \"" + T + "\"\n  }");
    assertSpliced(in, lockfile.with(WEB, entry("9")).bytes(), web, web + "{\"version\": \"1\", \"pulledAt\": \"t\"}".length(),
        "{\n    \"version\": \"9\",\n    \"pulledAt\": \"" + T + "\"\n  }");
    assertSpliced(in, lockfile.without(WEB).bytes(), indexOf(in, ",\n  \"@acme/web\""), indexOf(in, ",\n  \"@acme/list\""), "");
    assertThat(lockfile.without(WEB).foreign()).isEqualTo(lockfile.foreign());
  }

  @Test
  void foreignMembers_refuseWritesToTheirKey() {
    Lockfile lockfile = parse(WITH_FOREIGN);

    assertThatThrownBy(() -> lockfile.with(ExtensionName.of("@acme/sum"), entry("2")))
        .isInstanceOfSatisfying(LockfileFormatException.class, e -> {
          assertThat(e.code()).isEqualTo("foreign_entry").isEqualTo(LockfileFormatException.FOREIGN_ENTRY);
          assertThat(e.foreignMember()).contains("@acme/sum");
          assertThat(e.foreignReason().orElseThrow()).startsWith("field \"checksum\" of @acme/sum is invalid");
        })
        .hasMessage("Cannot put lockfile entry @acme/sum: the lockfile holds it as a foreign member (field \"checksum\" of"
            + " @acme/sum is invalid: checksum must be exactly 64 lowercase hex digits (a SHA-256), got \"ABC\"), kept byte"
            + " for byte; only a hand edit of the file can change it");
    assertThatThrownBy(() -> lockfile.without(ExtensionName.of("@acme/list")))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessage("Cannot remove lockfile entry @acme/list: the lockfile holds it as a foreign member (the entry of"
            + " @acme/list must be a JSON object, found an array), kept byte for byte; only a hand edit of the file can"
            + " change it")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("foreign_entry");
  }

  @Test
  void foreignReason_isOneLine() {
    Lockfile lockfile = parse("{\"@a/b\": {\"version\": \"1\", \"pulledAt\": \"t\", \"checksum\": \"x\\ny\"}}");

    assertThat(lockfile.foreign().get(0).reason()).doesNotContain("\n").contains("got \"x\\u000ay\"");
  }

  static Stream<Object[]> refusals() {
    return Stream.of(
        new Object[] {"{\n  \"@a/b\": {\"version\": \"1\",\n", "2:11", "unexpected end of input: the object opened here is never closed"},
        new Object[] {"{\n  \"@a/b\": [\n", "2:11", "unexpected end of input: the array opened here is never closed"},
        new Object[] {"\uFEFF{\"x\": \"abc", "1:1", "unexpected end of input: the object opened here is never closed"},
        new Object[] {"{oops}", "1:2", "Unexpected character ('o'"},
        new Object[] {"{\"a\": tru", "1:7", "Unrecognized token 'tru'"},
        new Object[] {"[1, 2]", "1:1", "the file must contain a JSON object, found an array"},
        new Object[] {"\n\n  \"text\"", "3:3", "the file must contain a JSON object, found a string"},
        new Object[] {"{}\n{}", "2:1", "unexpected content after the JSON object"},
        new Object[] {"{}\n]", "2:1", "Unexpected close marker"},
        new Object[] {"{\"@a/b\": {},\n \"@a/b\": {}}", "2:8", "Duplicate field '@a/b'"},
        new Object[] {"{\"x\": [{\"k\": 1, \"k\": 2}]}", "1:20", "Duplicate field 'k'"},
        new Object[] {"\uFEFF{\n\"x\": 1,}", "2:8", "Unexpected character ('}'"},
        new Object[] {"\uFEFF{,}", "1:2", "Unexpected character (','"});
  }

  @ParameterizedTest
  @MethodSource("refusals")
  void parse_refusesWhatIsNotOneJsonObject_namingSourceAndPosition(String text, String position, String reason) {
    assertThatThrownBy(() -> Lockfile.parse(utf8(text), "/x/upstream_extensions.json"))
        .isInstanceOfSatisfying(LockfileFormatException.class, e -> {
          assertThat(e.code()).isEqualTo("lockfile_format");
          assertThat(e.source()).isEqualTo("/x/upstream_extensions.json");
          assertThat(e.position()).contains(position);
        })
        .hasMessageStartingWith("Cannot read lockfile /x/upstream_extensions.json: ")
        .hasMessageContaining(reason)
        .hasMessageEndingWith("(at line " + position.replace(":", ", column ") + ")");
  }

  static Stream<Object[]> invalidUtf8() {
    return Stream.of(
        new Object[] {new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xFF, '"', '}'}, "1:7", "ff"},
        new Object[] {new byte[] {'{', '\n', '"', (byte) 0xC0, (byte) 0x80, '"', ':', '1', '}'}, "2:2", "c0"},
        new Object[] {new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'}, "1:7", "ed"},
        new Object[] {new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"', '}'},
            "1:7", "f4"},
        new Object[] {new byte[] {'{', '}', ' ', (byte) 0xE2, (byte) 0x82}, "1:4", "e2"},
        new Object[] {new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', (byte) 0x80, '}'}, "1:2", "80"});
  }

  @ParameterizedTest
  @MethodSource("invalidUtf8")
  void parse_refusesInvalidUtf8AtItsPosition(byte[] bytes, String position, String hex) {
    assertThatThrownBy(() -> Lockfile.parse(bytes, "f.json"))
        .isInstanceOfSatisfying(LockfileFormatException.class, e -> assertThat(e.position()).contains(position))
        .hasMessage("Cannot read lockfile f.json: the file is not valid UTF-8: byte 0x" + hex
            + " does not start a well-formed sequence (at line " + position.replace(":", ", column ") + ")");
  }

  @Test
  void parse_refusesMoreThanTheLimit() {
    byte[] big = new byte[LockfileCodec.MAX_BYTES + 1];
    Arrays.fill(big, (byte) ' ');
    big[0] = '{';
    big[big.length - 1] = '}';

    assertThatThrownBy(() -> Lockfile.parse(big, "big.json"))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessage("Cannot read lockfile big.json: the file has " + big.length + " bytes, more than the limit of "
            + LockfileCodec.MAX_BYTES)
        .extracting(e -> ((LockfileFormatException) e).position()).isEqualTo(java.util.Optional.empty());
  }
}
