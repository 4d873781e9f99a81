package dev.tierlock.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hostile-archive corpus, built here byte by byte: every archive is refused by listing and by
 * extraction with its specific code and rule or cap, and extraction leaves nothing inside or
 * outside its staging directory.
 */
class TarGzReaderHostileTest {

  private static final String SOURCE = "@evil/pkg@0000";
  private static final ArchiveLimits SMALL = ArchiveLimits.DEFAULTS.withMaxDecompressedBytes(1024 * 1024);

  @TempDir
  static Path shared;

  @TempDir
  Path temp;

  private Path work;

  /** One hostile archive and what it must be refused with. */
  record Case(String name, Function<Path, byte[]> archive, String code, Object reason, String entry) {
    @Override
    public String toString() {
      return name;
    }
  }

  @BeforeEach
  void createWork() throws IOException {
    work = Files.createDirectory(temp.resolve("work"));
    Files.writeString(work.resolve("sentinel.txt"), "outside staging");
  }

  static Stream<Arguments> corpus() {
    byte[] bomb = new byte[8 * 1024 * 1024];
    return Stream.of(
        rejected("path traversal", dir -> RawTar.create().file("../evil.txt", "x").end().gzip(),
            ArchiveException.Rule.PARENT_REFERENCE, "../evil.txt"),
        rejected("nested path traversal", dir -> RawTar.create().directory("pkg/").file("pkg/../../evil.txt", "x")
            .end().gzip(), ArchiveException.Rule.PARENT_REFERENCE, "pkg/../../evil.txt"),
        rejected("absolute path", dir -> RawTar.create().file(dir.resolve("abs-evil.txt").toString(), "x").end()
            .gzip(), ArchiveException.Rule.ABSOLUTE_PATH, "abs-evil.txt"),
        rejected("windows drive path", dir -> RawTar.create().file("C:/evil.txt", "x").end().gzip(),
            ArchiveException.Rule.ABSOLUTE_PATH, "C:/evil.txt"),
        rejected("windows drive-relative path", dir -> RawTar.create().file("c:evil.txt", "x").end().gzip(),
            ArchiveException.Rule.ABSOLUTE_PATH, "c:evil.txt"),
        rejected("backslash traversal", dir -> RawTar.create().file("..\\evil.txt", "x").end().gzip(),
            ArchiveException.Rule.BACKSLASH, "..\\evil.txt"),
        rejected("symlink with absolute target", dir -> RawTar.create()
            .symlink("passwd", dir.resolve("sentinel.txt").toString()).end().gzip(),
            ArchiveException.Rule.ABSOLUTE_LINK_TARGET, "passwd"),
        rejected("symlink escaping directly", dir -> RawTar.create().symlink("up", "../sentinel.txt").end().gzip(),
            ArchiveException.Rule.LINK_ESCAPES, "up"),
        rejected("symlink escaping from depth", dir -> RawTar.create().directory("a/").directory("a/b/")
            .symlink("a/b/up", "../../../sentinel.txt").end().gzip(), ArchiveException.Rule.LINK_ESCAPES, "a/b/up"),
        rejected("symlink escaping through an earlier directory symlink", dir -> RawTar.create().directory("sub/")
            .symlink("sub/inner", "..").symlink("sub/escape", "inner/../sentinel.txt").end().gzip(),
            ArchiveException.Rule.LINK_ESCAPES, "sub/escape"),
        rejected("symlink escaping through a later directory symlink", dir -> RawTar.create()
            .symlink("l", "d/../sentinel.txt").symlink("d", ".").end().gzip(), ArchiveException.Rule.LINK_ESCAPES, "l"),
        rejected("file written through a directory symlink", dir -> RawTar.create().directory("sub/")
            .symlink("d", "sub").file("d/evil.txt", "x").end().gzip(), ArchiveException.Rule.THROUGH_SYMLINK, "d/evil.txt"),
        rejected("symlink loop", dir -> RawTar.create().symlink("a", "b").symlink("b", "a").end().gzip(),
            ArchiveException.Rule.LINK_LOOP, "a"),
        rejected("hard link escaping", dir -> RawTar.create().hardLink("h", "../sentinel.txt").end().gzip(),
            ArchiveException.Rule.LINK_ESCAPES, "h"),
        rejected("hard link with absolute target", dir -> RawTar.create()
            .hardLink("h", dir.resolve("sentinel.txt").toString()).end().gzip(),
            ArchiveException.Rule.ABSOLUTE_LINK_TARGET, "h"),
        rejected("hard link to a symlink", dir -> RawTar.create().symlink("s", "x").hardLink("h", "s").end().gzip(),
            ArchiveException.Rule.HARD_LINK_TARGET, "h"),
        rejected("hard link to a later file", dir -> RawTar.create().hardLink("h", "f").file("f", "x").end().gzip(),
            ArchiveException.Rule.HARD_LINK_TARGET, "h"),
        limited("gzip bomb declared in a header", dir -> RawTar.create().file("zeros", bomb).end().gzip(),
            ArchiveException.Limit.DECOMPRESSED_BYTES),
        limited("gzip bomb in padding no header declares", dir -> RawTar.create().file("small", "x").end()
            .rawBytes(bomb).gzip(), ArchiveException.Limit.DECOMPRESSED_BYTES),
        corrupt("tar whose header declares more data than follows", dir -> RawTar.create()
            .header("short.txt", '0', 0644, 4096, "").rawBytes(new byte[100]).gzip(),
            "Truncated TAR archive, in or after entry \"short.txt\""),
        corrupt("tar whose header declares less data than follows", dir -> RawTar.create()
            .header("long.txt", '0', 0644, 10, "").data(filled(2048, (byte) 'x')).end().gzip(),
            "Corrupted TAR archive., in or after entry \"long.txt\""),
        corrupt("truncated gzip stream", dir -> {
          byte[] whole = RawTar.create().file("a.txt", filled(20_000, (byte) 7)).end().gzip();
          return Arrays.copyOf(whole, whole.length / 2);
        }, "the stream ends early (truncated)"),
        corrupt("gzip without its trailer", dir -> {
          byte[] whole = RawTar.create().file("a.txt", "a").end().gzip();
          return Arrays.copyOf(whole, whole.length - 8);
        }, "the stream ends early (truncated)"),
        corrupt("not gzip at all", dir -> RawTar.create().file("a.txt", "a").end().tar(), "not in the .gz format"),
        corrupt("garbage after the gzip stream", dir -> concat(RawTar.create().file("a.txt", "a").end().gzip(),
            "trailing garbage".getBytes(StandardCharsets.US_ASCII)), "data follows the gzip stream"),
        corrupt("zeros after the gzip stream", dir -> concat(RawTar.create().file("a.txt", "a").end().gzip(),
            new byte[512]), "data follows the gzip stream"),
        corrupt("second gzip member", dir -> concat(RawTar.create().file("a.txt", "a").end().gzip(),
            RawTar.gzip(new byte[1024])), "data follows the gzip stream"),
        limited("gzip header with an oversized file name", dir -> TarGzReaderTest.withGzipText(
            RawTar.create().file("a.txt", "a").end().gzip(), 1024 * 1024), ArchiveException.Limit.EXTENDED_HEADER),
        corrupt("data after the end-of-archive marker", dir -> RawTar.create().file("a.txt", "a").end()
            .rawBytes("hidden".getBytes(StandardCharsets.US_ASCII)).gzip(), "data follows the end of the tar archive"),
        corrupt("tar without its end-of-archive marker", dir -> RawTar.create().file("a.txt", "a").gzip(),
            "no end-of-archive marker"),
        corrupt("tar cut inside a header", dir -> RawTar.gzip(concat(RawTar.create().file("a.txt", "a").tar(),
            filled(100, (byte) 'h'))), "ends inside a header record"),
        rejected("duplicate file", dir -> RawTar.create().file("a.txt", "one").file("a.txt", "two").end().gzip(),
            ArchiveException.Rule.DUPLICATE, "a.txt"),
        rejected("names differing only in case", dir -> RawTar.create().file("README", "one").file("readme", "two")
            .end().gzip(), ArchiveException.Rule.DUPLICATE, "readme"),
        rejected("directories differing only in case", dir -> RawTar.create().file("lib/a.txt", "a")
            .file("LIB/b.txt", "b").end().gzip(), ArchiveException.Rule.DUPLICATE, "LIB/b.txt"),
        rejected("names differing only in Unicode form", dir -> RawTar.create().file("caf\u00e9", "nfc")
            .file("cafe\u0301", "nfd").end().gzip(), ArchiveException.Rule.DUPLICATE, "cafe\u0301"),
        rejected("symlink escaping through another case of a directory symlink", dir -> RawTar.create()
            .symlink("a", ".").symlink("x", "A/../sentinel.txt").end().gzip(), ArchiveException.Rule.LINK_ESCAPES, "x"),
        rejected("file over an implied directory", dir -> RawTar.create().file("a/b.txt", "b").file("a", "a").end()
            .gzip(), ArchiveException.Rule.DUPLICATE, "a"),
        rejected("duplicate directory", dir -> RawTar.create().directory("d/").directory("d/").end().gzip(),
            ArchiveException.Rule.DUPLICATE, "d/"),
        rejected("entry under a file", dir -> RawTar.create().file("a", "a").file("a/b.txt", "b").end().gzip(),
            ArchiveException.Rule.PARENT_NOT_DIRECTORY, "a/b.txt"),
        rejected("NUL in a name", dir -> RawTar.create().pax("path", "evil\0.txt").file("placeholder", "x").end()
            .gzip(), ArchiveException.Rule.CONTROL_CHARACTER, "evil\0.txt"),
        rejected("newline in a name", dir -> RawTar.create().file("evil\n.txt", "x").end().gzip(),
            ArchiveException.Rule.CONTROL_CHARACTER, "evil\n.txt"),
        rejected("escape sequence in a name", dir -> RawTar.create().file("\u001b[31mred", "x").end().gzip(),
            ArchiveException.Rule.CONTROL_CHARACTER, "\u001b[31mred"),
        rejected("NUL in a link target", dir -> RawTar.create().pax("linkpath", "a\0b").symlink("l", "placeholder")
            .end().gzip(), ArchiveException.Rule.CONTROL_CHARACTER, "l"),
        rejected("invalid UTF-8 in a name", dir -> RawTar.create()
            .header(new byte[] {'a', (byte) 0xff, 'b'}, '0', 0644, 0, "").end().gzip(), ArchiveException.Rule.INVALID_ENCODING,
            "a"),
        rejected("character device", dir -> RawTar.create().header("dev/tty", '3', 0644, 0, "").end().gzip(),
            ArchiveException.Rule.SPECIAL_FILE, "dev/tty"),
        rejected("block device", dir -> RawTar.create().header("dev/sda", '4', 0644, 0, "").end().gzip(),
            ArchiveException.Rule.SPECIAL_FILE, "dev/sda"),
        rejected("fifo", dir -> RawTar.create().header("pipe", '6', 0644, 0, "").end().gzip(),
            ArchiveException.Rule.SPECIAL_FILE, "pipe"),
        rejected("old GNU sparse file", dir -> RawTar.create().header("sparse", 'S', 0644, 0, "").end().gzip(),
            ArchiveException.Rule.SPARSE, "sparse"),
        rejected("PAX sparse file", dir -> RawTar.create().pax(paxSparse()).file("sparse", "x").end().gzip(),
            ArchiveException.Rule.SPARSE, "PaxHeaders"),
        rejected("volume header", dir -> RawTar.create().header("volume", 'V', 0644, 0, "").end().gzip(),
            ArchiveException.Rule.UNSUPPORTED_TYPE, "volume"),
        rejected("directory carrying data", dir -> RawTar.create().header("d/", '5', 0755, 512, "")
            .data(new byte[512]).end().gzip(), ArchiveException.Rule.UNSUPPORTED_TYPE, "d/"),
        rejected("file naming the root", dir -> RawTar.create().file(".", "x").end().gzip(), ArchiveException.Rule.ROOT_ENTRY,
            "."),
        rejected("empty name", dir -> RawTar.create().file("", "x").end().gzip(), ArchiveException.Rule.EMPTY_NAME, ""),
        rejected("overlong name segment", dir -> RawTar.create().pax("path", "s".repeat(256)).file("x", "x").end()
            .gzip(), ArchiveException.Rule.SEGMENT_TOO_LONG, "sss"),
        limited("oversized PAX header", dir -> RawTar.create().pax("comment", "c".repeat(70 * 1024)).file("x", "x")
            .end().gzip(), ArchiveException.Limit.EXTENDED_HEADER),
        limited("too many PAX headers in a row", dir -> {
          RawTar tar = RawTar.create();
          for (int i = 0; i < 20; i++) {
            tar.pax("comment", "n" + i);
          }
          return tar.file("x", "x").end().gzip();
        }, ArchiveException.Limit.EXTENDED_HEADERS_IN_A_ROW),
        limited("oversized global PAX headers", dir -> {
          RawTar tar = RawTar.create();
          for (int i = 0; i < 3; i++) {
            tar.extended('g', Map.of("comment" + i, "g".repeat(30 * 1024))).file("f" + i, "x");
          }
          return tar.end().gzip();
        }, ArchiveException.Limit.EXTENDED_HEADER));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void list_hostileArchive_isRefusedWithItsCode(Case c) {
    byte[] archive = c.archive().apply(work);

    assertRefused(c, () -> TarGzReader.of(SMALL).list(new ByteArrayInputStream(archive), SOURCE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void extract_hostileArchive_isRefusedAndLeavesNothing(Case c) throws IOException {
    byte[] archive = c.archive().apply(work);
    Path staging = work.resolve("staging");

    assertRefused(c, () -> TarGzReader.of(SMALL).extract(new ByteArrayInputStream(archive), SOURCE, staging));

    assertThat(staging).doesNotExist();
    assertThat(tree(temp)).containsExactly("work", "work/sentinel.txt");
    assertThat(Files.readString(work.resolve("sentinel.txt"))).isEqualTo("outside staging");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void extract_hostileArchiveIntoExistingEmptyDirectory_leavesItEmpty(Case c) throws IOException {
    byte[] archive = c.archive().apply(work);
    Path staging = Files.createDirectory(work.resolve("staging"));

    assertRefused(c, () -> TarGzReader.of(SMALL).extract(new ByteArrayInputStream(archive), SOURCE, staging));

    assertThat(tree(temp)).containsExactly("work", "work/sentinel.txt", "work/staging");
  }

  @Test
  void extract_failureAfterFilesWereWritten_removesThem() throws IOException {
    byte[] archive = RawTar.create().directory("pkg/").file("pkg/a.txt", "a").directory("pkg/sub/")
        .file("pkg/sub/b.txt", "b").symlink("pkg/ok", "a.txt").hardLink("pkg/c.txt", "pkg/a.txt")
        .file("pkg/../../evil.txt", "x").end().gzip();
    Path staging = work.resolve("staging");

    assertThatThrownBy(() -> TarGzReader.of(SMALL).extract(new ByteArrayInputStream(archive), SOURCE, staging))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.REJECTED))
        .hasMessageContaining("pkg/../../evil.txt");

    assertThat(tree(temp)).containsExactly("work", "work/sentinel.txt");
  }

  @Test
  void list_tooManyEntries_isRefused() {
    RawTar tar = RawTar.create();
    for (int i = 0; i < 6; i++) {
      tar.file("f" + i, "x");
    }
    byte[] archive = tar.end().gzip();

    assertThatThrownBy(() -> TarGzReader.of(SMALL.withMaxEntries(5)).list(new ByteArrayInputStream(archive), SOURCE))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
        .hasMessage("Cannot accept archive " + SOURCE + ": its number of entries and implied directories exceeds the cap"
            + " ENTRIES of 5 entries (6 entries seen)")
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_limit"));
  }

  @Test
  void list_tooManyImpliedDirectories_isRefused() {
    byte[] archive = RawTar.create().file("a/b/c/d/e/f.txt", "x").end().gzip();

    assertThatThrownBy(() -> TarGzReader.of(SMALL.withMaxEntries(5)).list(new ByteArrayInputStream(archive), SOURCE))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
        .satisfies(e -> assertThat(((ArchiveException) e).limit().orElseThrow()).isEqualTo(ArchiveException.Limit.ENTRIES));
  }

  @Test
  void list_nameOverPathLengthCap_isRefused() {
    byte[] archive = RawTar.create().file("a/" + "b".repeat(30), "x").end().gzip();

    assertThatThrownBy(() -> TarGzReader.of(SMALL.withMaxPathLength(20)).list(new ByteArrayInputStream(archive),
        SOURCE))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
        .hasMessageContaining("an entry name or link target exceeds the cap PATH_LENGTH of 20 characters (32")
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_limit"));
  }

  @Test
  void list_bombUnderTheDefaultCapButOverASmallerOne_isOnlyRefusedByTheSmallerCap() {
    byte[] archive = RawTar.create().file("small", "x").end().rawBytes(new byte[2 * 1024 * 1024]).gzip();

    assertThat(TarGzReader.of(ArchiveLimits.DEFAULTS).list(new ByteArrayInputStream(archive), SOURCE).paths())
        .containsExactly("small");
    assertThatThrownBy(() -> TarGzReader.of(SMALL).list(new ByteArrayInputStream(archive), SOURCE))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
        .satisfies(e -> assertThat(((ArchiveException) e).observed().getAsLong()).isEqualTo(1024 * 1024 + 1));
  }

  private static void assertRefused(Case c, org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    switch (c.code()) {
      case ArchiveException.REJECTED -> assertThatThrownBy(call)
          .isInstanceOfSatisfying(ArchiveException.class,
              e -> assertThat(e.code()).isEqualTo(ArchiveException.REJECTED))
          .hasMessageStartingWith("Cannot accept archive " + SOURCE + ": entry \"")
          .hasMessageContaining("breaks the rule " + ((ArchiveException.Rule) c.reason()).name())
          .satisfies(e -> {
            ArchiveException r = (ArchiveException) e;
            assertThat(r.code()).isEqualTo("archive_rejected");
            assertThat(r.rule().orElseThrow()).isEqualTo(c.reason());
            assertThat(r.entry().orElseThrow()).contains(c.entry());
            assertThat(r.source()).isEqualTo(SOURCE);
          });
      case ArchiveException.LIMIT -> assertThatThrownBy(call)
          .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
          .hasMessageStartingWith("Cannot accept archive " + SOURCE + ": ")
          .hasMessageContaining("exceeds the cap " + ((ArchiveException.Limit) c.reason()).name())
          .satisfies(e -> {
            ArchiveException l = (ArchiveException) e;
            assertThat(l.code()).isEqualTo("archive_limit");
            assertThat(l.limit().orElseThrow()).isEqualTo(c.reason());
            assertThat(l.observed().getAsLong()).isGreaterThan(l.max().getAsLong());
          });
      case ArchiveException.CORRUPT -> assertThatThrownBy(call)
          .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.CORRUPT))
          .hasMessageStartingWith("Cannot read archive " + SOURCE + ": not a well-formed tar.gz (")
          .hasMessageContaining(c.entry())
          .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_corrupt"));
      default -> throw new AssertionError("unknown code " + c.code());
    }
  }

  private static Arguments rejected(String name, Function<Path, byte[]> archive, ArchiveException.Rule rule, String entry) {
    return Arguments.of(new Case(name, archive, ArchiveException.REJECTED, rule, entry));
  }

  private static Arguments limited(String name, Function<Path, byte[]> archive, ArchiveException.Limit limit) {
    return Arguments.of(new Case(name, archive, ArchiveException.LIMIT, limit, ""));
  }

  private static Arguments corrupt(String name, Function<Path, byte[]> archive, String detail) {
    return Arguments.of(new Case(name, archive, ArchiveException.CORRUPT, "", detail));
  }

  private static Map<String, String> paxSparse() {
    Map<String, String> records = new LinkedHashMap<>();
    records.put("GNU.sparse.major", "1");
    records.put("GNU.sparse.minor", "0");
    records.put("GNU.sparse.realsize", "1073741824");
    return records;
  }

  private static byte[] filled(int size, byte value) {
    byte[] bytes = new byte[size];
    Arrays.fill(bytes, value);
    return bytes;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }

  private static List<String> tree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      return paths.filter(p -> !p.equals(root)).map(p -> root.relativize(p).toString().replace('\\', '/')).sorted()
          .toList();
    }
  }
}
