package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sidecar's text: what it writes, and how leniently it reads this format and the one before. */
class SidecarFormatTest {

  private static final String OLD = Digests.sha256Hex("old".getBytes(StandardCharsets.UTF_8));
  private static final String NEW = Digests.sha256Hex("new".getBytes(StandardCharsets.UTF_8));
  private static final FileIdentity OLD_FILE = new FileIdentity("ino:7", Instant.parse("2026-03-04T05:06:07.000000123Z"));
  private static final FileIdentity NEW_FILE = new FileIdentity("ino:8", Instant.parse("2026-03-04T05:06:08.5Z"));
  private static final ObjectMetadata OLD_META = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "old");
  private static final ObjectMetadata NEW_META = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "new");

  @Test
  void encode_writesTheHeaderTheKeyAndEachEntryWithItsFile() {
    byte[] encoded = Sidecar.encode(ObjectKey.of("config/x"), List.of(new Sidecar.Entry(OLD, OLD_FILE, OLD_META),
        new Sidecar.Entry(NEW, null, NEW_META)));

    assertThat(new String(encoded, StandardCharsets.UTF_8)).isEqualTo("tierlock-fs-metadata 2\n"
        + "key config/x\n"
        + "object " + OLD + " file=ino:7 modified=2026-03-04T05:06:07.000000123Z\n"
        + "tierlock-commit-id=old\n"
        + "object " + NEW + "\n"
        + "tierlock-commit-id=new\n");
  }

  @Test
  void parse_ignoresUnknownTokens_andDropsAnEntryWhoseFileCannotBeRead() {
    Sidecar parsed = parse("tierlock-fs-metadata 2", "key k",
        "object " + OLD + " colour=blue file=ino:7 modified=2026-03-04T05:06:07.000000123Z",
        "tierlock-commit-id=old",
        "object " + NEW + " file=ino:8 modified=yesterday",
        "tierlock-commit-id=new");

    assertThat(parsed.metadataOf(OLD, OLD_FILE)).contains(OLD_META);
    assertThat(parsed.metadataOf(NEW, NEW_FILE)).as("an identity it cannot read binds nothing").isEmpty();
    assertThat(parsed.metadataOf(NEW, null)).isEmpty();
    assertThat(parse("tierlock-fs-metadata 2", "object " + NEW + " file=ino:8", "a=b").metadataOf(NEW, NEW_FILE))
        .as("a file without its time").isEmpty();
  }

  @Test
  void parse_ofAFormatItDoesNotKnow_knowsNothing() {
    Sidecar parsed = parse("tierlock-fs-metadata 3", "object " + NEW + " file=ino:8 modified=2026-03-04T05:06:08.5Z",
        "tierlock-commit-id=new");

    assertThat(parsed.metadataOf(NEW, NEW_FILE)).isEmpty();
    assertThat(parsed.metadataOf(NEW, null)).isEmpty();
  }

  @Test
  void aFormatOneSidecar_bindsOnlyItsNewestEntry_whereFilesHaveKeys() {
    Sidecar parsed = parse("tierlock-fs-metadata 1", "key k", "object " + OLD, "tierlock-commit-id=old",
        "object " + NEW, "tierlock-commit-id=new");

    assertThat(parsed.metadataOf(NEW, NEW_FILE)).as("the newest: the content of the last write").contains(NEW_META);
    assertThat(parsed.metadataOf(OLD, OLD_FILE)).as("an earlier content, in whatever file").isEmpty();
    assertThat(parsed.metadataOf(OLD, null)).as("no file keys: by digest, as before").contains(OLD_META);
    assertThat(parsed.metadataOf(NEW, null)).contains(NEW_META);
  }

  @Test
  void anEntryThatNamesNoFile_inTheCurrentFormat_bindsLikeAFormatOneEntry() {
    Sidecar parsed = Sidecar.parse(Sidecar.encode(ObjectKey.of("k"), List.of(new Sidecar.Entry(OLD, null, OLD_META),
        new Sidecar.Entry(NEW, null, NEW_META))));

    assertThat(parsed.metadataOf(NEW, NEW_FILE)).contains(NEW_META);
    assertThat(parsed.metadataOf(OLD, OLD_FILE)).isEmpty();
    assertThat(parsed.metadataOf(OLD, null)).contains(OLD_META);
  }

  @Test
  void theNewestEntryBindsByDigestAlone_onlyWhenItNamesNoFile() {
    Sidecar parsed = Sidecar.parse(Sidecar.encode(ObjectKey.of("k"), List.of(new Sidecar.Entry(OLD, null, OLD_META),
        new Sidecar.Entry(NEW, NEW_FILE, NEW_META))));

    assertThat(parsed.metadataOf(OLD, OLD_FILE)).isEmpty();
    assertThat(parsed.metadataOf(NEW, OLD_FILE)).isEmpty();
    assertThat(parsed.metadataOf(NEW, NEW_FILE)).contains(NEW_META);
  }

  private static Sidecar parse(String... lines) {
    return Sidecar.parse((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
