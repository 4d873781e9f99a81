package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.internal.CodecTally;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How much work a change of a big lockfile does, counted with {@link CodecTally} (never timed): one
 * pass over the bytes, a decode of only the members a change reads, a format of only the entry it
 * writes, and bytes assembled by copying the untouched runs of the original whole.
 */
class LockfileSpliceTest {

  private static final int SIZE = 5_000;
  private static final String T = "2026-01-01T00:00:00.000Z";
  private static final ExtensionName MIDDLE = name(2_500);
  private static final ExtensionName NEW = ExtensionName.of("@x/new");

  /** Written by an older tool: CRLF, tabs, unsorted files and an unknown field in every entry. */
  private static final byte[] BIG = big();

  @TempDir Path dir;

  private static ExtensionName name(int i) {
    return ExtensionName.of("@s" + i + "/n");
  }

  private static String member(int i) {
    return "\t\"@s" + i + "/n\": {\r\n\t\t\"version\": \"1." + i + "\",\r\n\t\t\"pulledAt\": \"" + T + "\",\r\n"
        + "\t\t\"files\": [\r\n\t\t\t\"z" + i + "\",\r\n\t\t\t\"a" + i + "\"\r\n\t\t],\r\n"
        + "\t\t\"future\": {\"n\": [2.50, -0], \"s\": \"caf\\u00e9\"}\r\n\t}";
  }

  private static byte[] big() {
    StringBuilder text = new StringBuilder("{\r\n");
    for (int i = 0; i < SIZE; i++) {
      text.append(i == 0 ? "" : ",\r\n").append(member(i));
    }
    return text.append("\r\n}\r\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, T).build();
  }

  private static final String NEW_VALUE = "{\r\n\t\t\"version\": \"9.0.0\",\r\n\t\t\"pulledAt\": \"" + T + "\"\r\n\t}";

  @Test
  void parse_checksTheWholeFileButDecodesNoMember() {
    try (CodecTally tally = CodecTally.open()) {
      Lockfile lockfile = Lockfile.parse(BIG, "big.json");

      assertThat(tally.parses()).isEqualTo(1);
      assertThat(tally.decodes()).isZero();
      assertThat(lockfile.bytes()).isEqualTo(BIG);
      assertThat(lockfile.entry(MIDDLE).orElseThrow().files()).containsExactly("a2500", "z2500");
      assertThat(lockfile.contains(name(7))).isTrue();
      assertThat(tally.decodes()).as("only the two members read").isEqualTo(2);
      assertThat(lockfile.size()).isEqualTo(SIZE);
      assertThat(tally.decodes()).isEqualTo(SIZE);
      assertThat(tally.formats()).isZero();
    }
  }

  @Test
  void parse_refusesBadJsonDeepInsideAMemberItDoesNotDecode() {
    String broken = text(BIG).replace("\"a4000\"\r\n", "\"a4000\",\r\n");
    int line = text(BIG).substring(0, text(BIG).indexOf("\"a4000\"")).split("\r\n", -1).length + 1;

    assertThatThrownBy(() -> Lockfile.parse(broken.getBytes(StandardCharsets.UTF_8), "big.json"))
        .isInstanceOfSatisfying(LockfileFormatException.class,
            e -> assertThat(e.position()).contains(line + ":3"))
        .hasMessageStartingWith("Cannot read lockfile big.json: Unexpected character (']'");
    String duplicate = text(BIG).replace("\"future\": {\"n\": [2.50, -0], \"s\": \"caf\\u00e9\"}\r\n\t}",
        "\"future\": {\"n\": [2.50, -0], \"n\": 1}\r\n\t}");
    assertThatThrownBy(() -> Lockfile.parse(duplicate.getBytes(StandardCharsets.UTF_8), "big.json"))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageContaining("Duplicate field 'n'");
  }

  @Test
  void with_existingName_formatsOnlyThatEntryAndSplicesItIntoTheOriginalBytes() {
    Lockfile parsed = Lockfile.parse(BIG, "big.json");
    String old = member(2_500).substring(member(2_500).indexOf('{'));

    try (CodecTally tally = CodecTally.open()) {
      byte[] out = parsed.with(MIDDLE, entry("9.0.0")).bytes();

      assertThat(text(out)).isEqualTo(text(BIG).replace(old, NEW_VALUE));
      assertThat(tally.decodes()).as("the entry replaced, to compare").isEqualTo(1);
      assertThat(tally.formats()).isEqualTo(1);
      assertThat(tally.assemblies()).isEqualTo(1);
      assertThat(tally.assembledBytes()).isEqualTo(out.length);
    }
  }

  @Test
  void with_newName_appendsInTheFilesLayoutAndDecodesNothing() {
    Lockfile parsed = Lockfile.parse(BIG, "big.json");

    try (CodecTally tally = CodecTally.open()) {
      byte[] out = parsed.with(NEW, entry("9.0.0")).bytes();

      String end = "\r\n}\r\n";
      assertThat(text(out)).isEqualTo(text(BIG).substring(0, BIG.length - end.length()) + ",\r\n\t\"@x/new\": " + NEW_VALUE
          + end);
      assertThat(tally.decodes()).isZero();
      assertThat(tally.formats()).isEqualTo(1);
    }
  }

  @Test
  void applyTo_theSameUpsertTwice_formatsItOnceAndParsesNothing() {
    Lockfile parsed = Lockfile.parse(BIG, "big.json");
    LockfileDelta delta = LockfileDelta.upsert(MIDDLE, entry("9.0.0"));

    try (CodecTally tally = CodecTally.open()) {
      Lockfile once = delta.applyTo(parsed);
      Lockfile again = delta.applyTo(parsed);

      assertThat(again.bytes()).isEqualTo(once.bytes());
      assertThat(tally.parses()).isZero();
      assertThat(tally.decodes()).as("the entry replaced").isEqualTo(1);
      assertThat(tally.formats()).isEqualTo(1);
      assertThat(again.document().members().get(2_500)).isSameAs(once.document().members().get(2_500));
    }
  }

  @Test
  void applyTo_aDeltaOfSeveralNames_touchesOnlyThem() {
    Lockfile parsed = Lockfile.parse(BIG, "big.json");
    LockfileDelta delta = LockfileDelta.of(Map.of(MIDDLE, entry("9.0.0"), NEW, entry("1.0.0")), List.of(name(3)));

    try (CodecTally tally = CodecTally.open()) {
      Lockfile changed = delta.applyTo(parsed);

      assertThat(changed.size()).isEqualTo(SIZE);
      assertThat(tally.parses()).isZero();
      assertThat(tally.formats()).isEqualTo(2);
      assertThat(tally.decodes()).as("the names removed and replaced, then for size() every member not written")
          .isEqualTo(SIZE);
      List<LockfileDocument.Member> before = parsed.document().members();
      List<LockfileDocument.Member> after = changed.document().members();
      for (int i = 4; i < SIZE; i++) {
        if (i != 2_500) {
          assertThat(after.get(i - 1)).isSameAs(before.get(i));
        }
      }
    }
  }

  @Test
  void deltaOf_andRestrictedTo_decodeOnlyTheNamesAskedAbout() {
    Lockfile parsed = Lockfile.parse(BIG, "big.json");
    Lockfile changed = parsed.with(MIDDLE, entry("9.0.0")).with(NEW, entry("1.0.0")).without(name(3));

    try (CodecTally tally = CodecTally.open()) {
      LockfileDelta delta = ChangeEditor.deltaOf(parsed, changed, Set.of(NEW, name(3), MIDDLE, name(9)));
      Lockfile kept = parsed.restrictedTo(Set.of(name(9), name(4_000), NEW));

      assertThat(delta.upserts().keySet()).containsExactly(MIDDLE, NEW);
      assertThat(delta.removals()).containsExactly(name(3));
      assertThat(kept.names()).containsExactly(name(9), name(4_000));
      assertThat(tally.decodes()).as("@s9/n, a member both share, and @s4000/n").isEqualTo(2);
    }
  }

  @Test
  void transactionEditor_putOnABigLockfile_decodesAndFormatsOnlyThatEntry() {
    Lockfile parsed = Lockfile.parse(BIG, "big.json");
    ChangeEditor editor = new ChangeEditor(parsed, PulledExtensionsLock.builder(dir).build());

    try (CodecTally tally = CodecTally.open()) {
      editor.put(MIDDLE, entry("9.0.0"));
      LockfileDelta delta = editor.delta();
      Lockfile published = delta.applyTo(parsed);

      assertThat(delta.names()).containsExactly(MIDDLE);
      assertThat(text(published.bytes())).isEqualTo(text(BIG).replace(member(2_500).substring(member(2_500).indexOf('{')),
          NEW_VALUE));
      assertThat(tally.decodes()).isEqualTo(1);
      assertThat(tally.formats()).isEqualTo(1);
    }
  }

  @Test
  void freshLockfile_formatsWhenItsBytesAreAskedFor_intoOneRun() {
    Map<ExtensionName, LockfileEntry> entries = new LinkedHashMap<>();
    for (int i = 0; i < SIZE; i++) {
      entries.put(name(i), LockfileEntry.builder("1." + i, T).files(List.of("z", "a")).build());
    }

    try (CodecTally tally = CodecTally.open()) {
      Lockfile fresh = Lockfile.of(entries);
      Lockfile kept = fresh.restrictedTo(Set.of(MIDDLE)).with(NEW, entry("1")).without(NEW);

      assertThat(kept.entries()).containsOnlyKeys(MIDDLE);
      assertThat(fresh.entry(MIDDLE)).contains(entries.get(MIDDLE));
      assertThat(tally.formats()).as("nothing asked for bytes yet").isZero();
      byte[] bytes = fresh.bytes();
      assertThat(tally.formats()).isEqualTo(SIZE);
      assertThat(Lockfile.parse(bytes, "fresh").entries()).isEqualTo(entries);
      assertThat(fresh.bytes()).isEqualTo(bytes);
      assertThat(tally.formats()).as("formatted once").isEqualTo(SIZE);
      byte[] edited = fresh.with(MIDDLE, entry("9.0.0")).bytes();
      assertThat(tally.formats()).as("once formatted, an edit formats only its entry").isEqualTo(SIZE + 1);
      Map<ExtensionName, LockfileEntry> changed = new LinkedHashMap<>(entries);
      changed.put(MIDDLE, entry("9.0.0"));
      assertThat(edited).isEqualTo(Lockfile.of(changed).bytes());
    }
  }
}
