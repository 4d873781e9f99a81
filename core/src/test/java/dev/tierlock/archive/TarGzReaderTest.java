package dev.tierlock.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TarGzReaderTest {

  private final TarGzReader reader = TarGzReader.of(ArchiveLimits.DEFAULTS);

  @TempDir
  Path temp;

  /** A realistic extension archive written by Commons Compress, as a registry would serve it. */
  static byte[] extensionArchive() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(bytes))) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      directory(tar, "./");
      directory(tar, "./pkg/");
      file(tar, "./pkg/manifest.yaml", "name: '@acme/tools'\nversion: 1.2.3\n", 0644);
      file(tar, "./pkg/._manifest.yaml", "apple double", 0644);
      directory(tar, "./pkg/bin/");
      file(tar, "./pkg/bin/run.sh", "#!/bin/sh\necho run\n", 0755);
      file(tar, "./pkg/lib/deep/nested/tool.txt", "deep", 0640);
      symlink(tar, "./pkg/bin/tool", "../lib/deep/nested/tool.txt");
      symlink(tar, "./pkg/lib/self", ".");
      symlink(tar, "./pkg/docs", "lib/self/deep/../deep/nested");
      TarArchiveEntry hard = new TarArchiveEntry("./pkg/manifest-copy.yaml", TarConstants.LF_LINK);
      hard.setLinkName("./pkg/manifest.yaml");
      tar.putArchiveEntry(hard);
      tar.closeArchiveEntry();
      file(tar, "./pkg/" + "long-name-".repeat(12) + ".txt", "long", 0644);
    }
    return bytes.toByteArray();
  }

  @Test
  void list_extensionArchive_returnsEntriesInOrderWithoutAppleDouble() throws IOException {
    ArchiveListing listing = reader.list(new ByteArrayInputStream(extensionArchive()), "@acme/tools@test");

    assertThat(listing.paths()).containsExactly("pkg", "pkg/manifest.yaml", "pkg/bin", "pkg/bin/run.sh",
        "pkg/lib/deep/nested/tool.txt", "pkg/bin/tool", "pkg/lib/self", "pkg/docs", "pkg/manifest-copy.yaml",
        "pkg/" + "long-name-".repeat(12) + ".txt");
    assertThat(listing.skipped()).isEqualTo(1);
    assertThat(listing.entries()).contains(
        new ArchiveListing.Entry.Directory("pkg/bin", 0755),
        new ArchiveListing.Entry.File("pkg/bin/run.sh", "#!/bin/sh\necho run\n".length(), 0755),
        new ArchiveListing.Entry.SymbolicLink("pkg/bin/tool", "../lib/deep/nested/tool.txt"),
        new ArchiveListing.Entry.HardLink("pkg/manifest-copy.yaml", "pkg/manifest.yaml"));
    assertThat(listing.decompressedBytes()).isPositive().isEqualTo(listing.decompressedBytes() / 512 * 512);
  }

  @Test
  void extract_extensionArchive_writesTreeLinksAndModes() throws IOException {
    Path archive = Files.write(temp.resolve("a.tar.gz"), extensionArchive());
    Path staging = temp.resolve("staging");

    ArchiveListing listing = reader.extract(archive, staging);

    assertThat(listing.entries()).hasSize(10);
    assertThat(Files.readString(staging.resolve("pkg/manifest.yaml"))).isEqualTo("name: '@acme/tools'\nversion: 1.2.3\n");
    assertThat(staging.resolve("pkg/._manifest.yaml")).doesNotExist();
    assertThat(Files.readString(staging.resolve("pkg/lib/deep/nested/tool.txt"))).isEqualTo("deep");
    assertThat(Files.isSymbolicLink(staging.resolve("pkg/bin/tool"))).isTrue();
    assertThat(Files.readSymbolicLink(staging.resolve("pkg/bin/tool")).toString())
        .isEqualTo("../lib/deep/nested/tool.txt");
    assertThat(Files.readString(staging.resolve("pkg/bin/tool"))).isEqualTo("deep");
    assertThat(Files.readString(staging.resolve("pkg/docs/tool.txt"))).isEqualTo("deep");
    assertThat(Files.isSameFile(staging.resolve("pkg/manifest-copy.yaml"), staging.resolve("pkg/manifest.yaml")))
        .isTrue();
    if (Files.getFileStore(staging).supportsFileAttributeView("posix")) {
      assertThat(Files.getPosixFilePermissions(staging.resolve("pkg/bin/run.sh")))
          .contains(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
      assertThat(Files.getPosixFilePermissions(staging.resolve("pkg/manifest.yaml")))
          .doesNotContain(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OTHERS_WRITE);
      assertThat(Files.getPosixFilePermissions(staging.resolve("pkg/lib/deep/nested/tool.txt")))
          .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
              PosixFilePermission.GROUP_READ));
    }
  }

  @Test
  void extract_intoEmptyExistingDirectory_keepsTheDirectory() throws IOException {
    Path staging = Files.createDirectory(temp.resolve("staging"));

    reader.extract(new ByteArrayInputStream(extensionArchive()), "@acme/tools@test", staging);

    assertThat(staging.resolve("pkg/bin/run.sh")).exists();
  }

  @Test
  void extract_intoNonEmptyDirectory_failsAndChangesNothing() throws IOException {
    Path staging = Files.createDirectory(temp.resolve("staging"));
    Files.writeString(staging.resolve("keep.txt"), "mine");

    assertThatThrownBy(() -> reader.extract(new ByteArrayInputStream(extensionArchive()), "@acme/tools@test", staging))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.IO))
        .hasMessageContaining("Cannot extract archive @acme/tools@test into")
        .hasMessageContaining("not empty")
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_io"));
    try (Stream<Path> files = Files.list(staging)) {
      assertThat(files).containsExactly(staging.resolve("keep.txt"));
    }
    assertThat(Files.readString(staging.resolve("keep.txt"))).isEqualTo("mine");
  }

  @Test
  void extract_intoSymbolicLink_failsAndFollowsNothing() throws IOException {
    Path elsewhere = Files.createDirectory(temp.resolve("elsewhere"));
    Path staging = Files.createSymbolicLink(temp.resolve("staging"), elsewhere);

    assertThatThrownBy(() -> reader.extract(new ByteArrayInputStream(extensionArchive()), "src", staging))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.IO))
        .hasMessageContaining("exists and is not a directory")
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_io"));
    try (Stream<Path> files = Files.list(elsewhere)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void extract_whenStagingParentIsMissing_failsWithIoError() throws IOException {
    Path staging = temp.resolve("missing/staging");

    assertThatThrownBy(() -> reader.extract(new ByteArrayInputStream(extensionArchive()), "src", staging))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.IO))
        .hasMessageStartingWith("Cannot extract archive src into " + staging)
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_io"));
    assertThat(temp.resolve("missing")).doesNotExist();
  }

  @Test
  void list_archiveFileOverCompressedCap_isRefusedBeforeReading() throws IOException {
    Path archive = Files.write(temp.resolve("a.tar.gz"), extensionArchive());
    TarGzReader small = TarGzReader.of(ArchiveLimits.DEFAULTS.withMaxCompressedBytes(100));

    assertThatThrownBy(() -> small.list(archive))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
        .hasMessageContaining("exceeds the cap COMPRESSED_BYTES of 100 bytes")
        .hasMessageContaining(archive.toString())
        .satisfies(e -> {
          ArchiveException limit = (ArchiveException) e;
          assertThat(limit.code()).isEqualTo("archive_limit");
          assertThat(limit.limit().orElseThrow()).isEqualTo(ArchiveException.Limit.COMPRESSED_BYTES);
          assertThat(limit.observed().getAsLong()).isEqualTo(Files.size(archive));
        });
  }

  @Test
  void list_streamOverCompressedCap_isRefusedWhileStreaming() throws IOException {
    TarGzReader small = TarGzReader.of(ArchiveLimits.DEFAULTS.withMaxCompressedBytes(100));

    assertThatThrownBy(() -> small.list(new ByteArrayInputStream(extensionArchive()), "@acme/tools@x"))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
        .hasMessageStartingWith("Cannot accept archive @acme/tools@x: its compressed size exceeds the cap")
        .satisfies(e -> assertThat(((ArchiveException) e).observed().getAsLong()).isEqualTo(101));
  }

  @Test
  void list_emptyArchive_hasNoEntries() {
    ArchiveListing listing = reader.list(new ByteArrayInputStream(RawTar.create().end().gzip()), "empty");

    assertThat(listing.entries()).isEmpty();
    assertThat(listing.decompressedBytes()).isEqualTo(1024);
  }

  @Test
  void list_gzipHeaderWithNameAndComment_isAccepted() {
    byte[] archive = withGzipText(RawTar.create().file("a.txt", "a").end().gzip(), 4096);

    assertThat(reader.list(new ByteArrayInputStream(archive), "named").paths()).containsExactly("a.txt");
  }

  /** Returns {@code gzip} with a file name and a comment of {@code length} bytes each in its header. */
  static byte[] withGzipText(byte[] gzip, int length) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(gzip, 0, 3);
    out.write(gzip[3] | 8 | 16);
    out.write(gzip, 4, 6);
    out.writeBytes("n".repeat(length).getBytes(StandardCharsets.US_ASCII));
    out.write(0);
    out.writeBytes("c".repeat(length).getBytes(StandardCharsets.US_ASCII));
    out.write(0);
    out.write(gzip, 10, gzip.length - 10);
    return out.toByteArray();
  }

  @Test
  void list_impliedDirectoryListedLater_isAccepted() {
    byte[] archive = RawTar.create().file("a/b.txt", "b").directory("a/").end().gzip();

    assertThat(reader.list(new ByteArrayInputStream(archive), "late dir").paths()).containsExactly("a/b.txt", "a");
  }

  @Test
  void list_linkChainsInside_areAccepted() {
    byte[] archive = RawTar.create()
        .directory("x/").directory("x/y/")
        .symlink("x/y/up", "..")
        .symlink("x/y/sideways", "up/y/up/y")
        .symlink("dangling", "x/not-there/../y")
        .end().gzip();

    assertThat(reader.list(new ByteArrayInputStream(archive), "chains").paths())
        .containsExactly("x", "x/y", "x/y/up", "x/y/sideways", "dangling");
  }

  @Test
  void listAndExtract_sameArchive_agree() throws IOException {
    byte[] archive = extensionArchive();

    ArchiveListing listed = reader.list(new ByteArrayInputStream(archive), "a");
    ArchiveListing extracted = reader.extract(new ByteArrayInputStream(archive), "a", temp.resolve("s"));

    assertThat(extracted).isEqualTo(listed);
  }

  @Test
  void of_keepsLimits() {
    ArchiveLimits limits = ArchiveLimits.DEFAULTS.withMaxEntries(3);

    assertThat(TarGzReader.of(limits).limits()).isEqualTo(limits);
  }

  private static void directory(TarArchiveOutputStream tar, String name) throws IOException {
    TarArchiveEntry entry = new TarArchiveEntry(name);
    entry.setMode(TarArchiveEntry.DEFAULT_DIR_MODE);
    tar.putArchiveEntry(entry);
    tar.closeArchiveEntry();
  }

  private static void file(TarArchiveOutputStream tar, String name, String text, int mode) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    TarArchiveEntry entry = new TarArchiveEntry(name);
    entry.setSize(bytes.length);
    entry.setMode(0100000 | mode);
    tar.putArchiveEntry(entry);
    tar.write(bytes);
    tar.closeArchiveEntry();
  }

  private static void symlink(TarArchiveOutputStream tar, String name, String target) throws IOException {
    TarArchiveEntry entry = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
    entry.setLinkName(target);
    tar.putArchiveEntry(entry);
    tar.closeArchiveEntry();
  }
}
