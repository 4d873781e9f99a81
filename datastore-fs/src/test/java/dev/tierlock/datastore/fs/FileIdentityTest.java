package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What names a file: its key within the root and its modification time. */
class FileIdentityTest {

  @TempDir Path dir;

  @Test
  void read_namesAPosixFileByItsInodeAlone_andItsTimeToTheNanosecond() throws IOException {
    Path file = Files.writeString(dir.resolve("f"), "x");
    Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2026-05-06T07:08:09.123456789Z")));

    FileIdentity identity = FileIdentity.read(file).orElseThrow();

    Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    assertThat(key.toString()).contains("ino=" + Files.getAttribute(file, "unix:ino"));
    assertThat(identity).isEqualTo(new FileIdentity("ino:" + Files.getAttribute(file, "unix:ino"),
        Instant.parse("2026-05-06T07:08:09.123456789Z")));
    assertThat(FileIdentity.parse(identity.fileToken(), identity.modifiedToken())).contains(identity);
  }

  @Test
  void stamp_givesTheTempFileATimeOfItsOwnWithinItsMillisecond_whichAMoveKeeps() throws IOException {
    Path temp = Files.writeString(dir.resolve("temp"), "x");
    Instant natural = Files.getLastModifiedTime(temp).toInstant();

    FileIdentity stamped = FileIdentity.stamp(temp).orElseThrow();
    Path target = dir.resolve("target");
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

    assertThat(stamped.modified().truncatedTo(ChronoUnit.MILLIS)).isEqualTo(natural.truncatedTo(ChronoUnit.MILLIS));
    assertThat(FileIdentity.read(target)).contains(stamped);
  }

  @Test
  void aProviderWithoutFileKeys_hasNoIdentity() throws IOException {
    try (FileSystem zip = FileSystems.newFileSystem(dir.resolve("z.zip"), Map.of("create", "true"))) {
      Path file = Files.writeString(zip.getPath("/f"), "x");

      assertThat(FileIdentity.read(file)).isEmpty();
      assertThat(FileIdentity.stamp(file)).isEmpty();
    }
  }

  @Test
  void parse_refusesWhatItDidNotWrite() {
    assertThat(FileIdentity.parse("ino:12", "2026-01-01T00:00:00Z")).isPresent();
    assertThat(FileIdentity.parse("key:" + "ab".repeat(32), "2026-01-01T00:00:00Z")).isPresent();
    assertThat(FileIdentity.parse("ino:x", "2026-01-01T00:00:00Z")).isEmpty();
    assertThat(FileIdentity.parse("(dev=1,ino=2)", "2026-01-01T00:00:00Z")).isEmpty();
    assertThat(FileIdentity.parse("ino:12", "noon")).isEmpty();
    assertThat(FileIdentity.parse(null, "2026-01-01T00:00:00Z")).isEmpty();
    assertThat(FileIdentity.parse("ino:12", null)).isEmpty();
  }

  @Test
  void identitiesAndSightings_compareWithoutABootstrap_asRecordsDo() throws Exception {
    // a record's own equals, hashCode and toString are made at their first call, spinning classes
    // that no start-up archive holds; every read compares these
    for (String type : List.of("FileIdentity", "ObjectReader$Observed")) {
      try (InputStream in = FileIdentity.class.getResourceAsStream(type + ".class")) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1)).as(type)
            .doesNotContain("java/lang/runtime/ObjectMethods");
      }
    }
    Instant at = Instant.parse("2026-01-02T03:04:05.123456789Z");
    FileIdentity identity = new FileIdentity("ino:42", at);
    assertThat(identity).isEqualTo(new FileIdentity("ino:42", at)).isNotEqualTo(new FileIdentity("ino:43", at))
        .isNotEqualTo(new FileIdentity("ino:42", at.plusNanos(1)))
        .hasSameHashCodeAs(31 * "ino:42".hashCode() + at.hashCode())
        .hasToString("FileIdentity[file=ino:42, modified=2026-01-02T03:04:05.123456789Z]");
  }
}
