package dev.tierlock.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another process replaces a staging subdirectory with a symbolic link to elsewhere while an
 * extraction runs: nothing outside staging may be written, linked or have its permissions changed.
 * The swap is made from the archive's input stream once a given path exists in staging; a large
 * incompressible entry keeps the extraction reading after it.
 */
class StagingWriterRaceTest {

  private static final int PAD_BYTES = 1024 * 1024;

  private final TarGzReader reader = TarGzReader.of(ArchiveLimits.DEFAULTS);

  @TempDir
  Path temp;

  private Path staging;
  private Path outside;

  @BeforeEach
  void createWork() throws IOException {
    staging = temp.resolve("staging");
    outside = Files.createDirectory(temp.resolve("outside"));
    Files.createDirectory(outside.resolve("b"), PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rwx------")));
    Files.writeString(outside.resolve("f"), "victim");
    Files.setPosixFilePermissions(outside.resolve("f"), PosixFilePermissions.fromString("rw-------"));
  }

  @Test
  void extract_directorySwappedBeforeModesApplied_leavesOutsideModes() throws IOException {
    byte[] archive = RawTar.create()
        .header("a/", '5', 0777, 0, "")
        .header("a/b/", '5', 0777, 0, "")
        .file("pad", pad())
        .end().gzip();

    Throwable thrown = catchThrowable(() -> reader.extract(swapping(archive, "a/b"), "race", staging));

    assertThat(Files.getPosixFilePermissions(outside.resolve("b")))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    assertThat(thrown)
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.REJECTED))
        .hasMessageContaining("symbolic link");
    assertThat(((ArchiveException) thrown).code()).isEqualTo(ArchiveException.REJECTED);
    assertThat(((ArchiveException) thrown).rule().orElseThrow()).isEqualTo(ArchiveException.Rule.THROUGH_SYMLINK);
  }

  @Test
  void extract_directorySwappedWhileFileIsWritten_leavesOutsideFileAlone() throws IOException {
    byte[] archive = RawTar.create()
        .header("a/f", '0', 0777, PAD_BYTES, "").data(pad())
        .end().gzip();

    catchThrowable(() -> reader.extract(swapping(archive, "a/f"), "race", staging));

    assertThat(Files.getPosixFilePermissions(outside.resolve("f")))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.readString(outside.resolve("f"))).isEqualTo("victim");
  }

  @Test
  void extract_directorySwappedBeforeHardLink_linksNothingOutside() throws IOException {
    byte[] archive = RawTar.create()
        .file("a/f", "inside")
        .file("pad", pad())
        .hardLink("h", "a/f")
        .end().gzip();

    Throwable thrown = catchThrowable(() -> reader.extract(swapping(archive, "a/f"), "race", staging));

    Path link = staging.resolve("h");
    assertThat(Files.exists(link, LinkOption.NOFOLLOW_LINKS) && Files.isSameFile(link, outside.resolve("f")))
        .as("staging holds a hard link to a file outside it").isFalse();
    assertThat(thrown)
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.REJECTED))
        .hasMessageContaining("symbolic link");
    assertThat(((ArchiveException) thrown).code()).isEqualTo(ArchiveException.REJECTED);
    assertThat(((ArchiveException) thrown).rule().orElseThrow()).isEqualTo(ArchiveException.Rule.THROUGH_SYMLINK);
    assertThat(link).doesNotExist();
  }

  @Test
  void extract_directorySwappedThenArchiveRefused_discardDeletesNothingOutside() throws IOException {
    byte[] archive = RawTar.create()
        .file("a/f", "inside")
        .file("pad", pad())
        .file("../escape", "x")
        .end().gzip();

    Throwable thrown = catchThrowable(() -> reader.extract(swapping(archive, "a/f"), "race", staging));

    assertThat(thrown)
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.REJECTED))
        .hasMessageContaining("../escape");
    assertThat(((ArchiveException) thrown).rule().orElseThrow()).isEqualTo(ArchiveException.Rule.PARENT_REFERENCE);
    assertThat(Files.readString(outside.resolve("f"))).isEqualTo("victim");
    assertThat(outside.resolve("b")).isDirectory();
    assertThat(staging).doesNotExist();
  }

  private static byte[] pad() {
    byte[] bytes = new byte[PAD_BYTES];
    new SplittableRandom(7).nextBytes(bytes);
    return bytes;
  }

  /** Replaces staging's {@code a} with a link to {@link #outside} once {@code trigger} exists. */
  private InputStream swapping(byte[] archive, String trigger) {
    return new FilterInputStream(new ByteArrayInputStream(archive)) {
      private boolean swapped;

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        if (!swapped && Files.exists(staging.resolve(trigger), LinkOption.NOFOLLOW_LINKS)) {
          swapped = true;
          try {
            Files.move(staging.resolve("a"), temp.resolve("moved"));
            Files.createSymbolicLink(staging.resolve("a"), outside);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
        return super.read(buffer, offset, Math.min(length, 4096));
      }
    };
  }
}
