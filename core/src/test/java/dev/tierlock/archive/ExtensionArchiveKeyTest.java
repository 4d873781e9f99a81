package dev.tierlock.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.InvalidInputException;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ExtensionArchiveKeyTest {

  private static final String DIGEST = "0123456789abcdef".repeat(4);

  @Test
  void tierPath_isUnderPulledArchives() {
    ExtensionArchiveKey key = ExtensionArchiveKey.of("@acme/tools/sub", DIGEST);

    assertThat(key.tierPath()).isEqualTo(TierPath.of("config/pulled-archives/@acme/tools/sub/" + DIGEST + ".tar.gz"));
    assertThat(key.fileName()).isEqualTo(DIGEST + ".tar.gz");
    assertThat(key).hasToString("@acme/tools/sub@" + DIGEST);
  }

  @Test
  void tierPath_boundToANamespaceOnce_givesKeyAndLocalPath() {
    ExtensionArchiveKey key = ExtensionArchiveKey.of("@acme/tools", DIGEST);
    Namespace ns = Namespace.of("team");

    assertThat(ns.key(key.tierPath()).value())
        .isEqualTo("team/config/pulled-archives/@acme/tools/" + DIGEST + ".tar.gz");
    assertThat(ns.localPath(Path.of("/cache"), key.tierPath()))
        .isEqualTo(Path.of("/cache/team/config/pulled-archives/@acme/tools/" + DIGEST + ".tar.gz"));
  }

  @Test
  void of_badName_failsWithNameCause() {
    assertThatThrownBy(() -> ExtensionArchiveKey.of("@acme/../etc", DIGEST))
        .isInstanceOfSatisfying(ArchiveException.class,
            e -> assertThat(e.code()).isEqualTo(ArchiveException.INVALID_KEY))
        .hasMessage("Cannot use archive key \"@acme/../etc\" with SHA-256 \"" + DIGEST + "\": the name must match "
            + ExtensionName.PATTERN.pattern() + " and have at most 214 characters")
        .hasCauseInstanceOf(InvalidInputException.class)
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("invalid_archive_key"));
  }

  @Test
  void of_uppercaseDigest_isRefused() {
    assertThatThrownBy(() -> ExtensionArchiveKey.of("@acme/tools", DIGEST.toUpperCase()))
        .isInstanceOfSatisfying(ArchiveException.class,
            e -> assertThat(e.code()).isEqualTo(ArchiveException.INVALID_KEY))
        .hasMessageEndingWith(": a SHA-256 holds only lowercase hex characters 0-9 and a-f")
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("invalid_archive_key"));
  }

  @Test
  void of_shortDigestWithControlCharacter_isRefusedAndPrintedSafely() {
    assertThatThrownBy(() -> ExtensionArchiveKey.of("@acme/tools", "abc\n"))
        .isInstanceOfSatisfying(ArchiveException.class,
            e -> assertThat(e.code()).isEqualTo(ArchiveException.INVALID_KEY))
        .hasMessage("Cannot use archive key \"@acme/tools\" with SHA-256 \"abc\\u000a\": a SHA-256 is exactly 64"
            + " lowercase hex characters, got 4 characters")
        .satisfies(e -> assertThat(((ArchiveException) e).source()).isEqualTo("@acme/tools@abc\n"));
  }

  @Test
  void fromTierPath_rejectsOtherPaths() {
    assertThat(ExtensionArchiveKey.fromTierPath(TierPath.LOCKFILE)).isEmpty();
    assertThat(ExtensionArchiveKey.fromTierPath(TierPath.of("config/pulled-archives/" + DIGEST + ".tar.gz"))).isEmpty();
    assertThat(ExtensionArchiveKey.fromTierPath(TierPath.of("config/pulled-archives/@a/b/" + DIGEST + ".zip")))
        .isEmpty();
    assertThat(ExtensionArchiveKey.fromTierPath(TierPath.of("config/pulled-archives/@a/B/" + DIGEST + ".tar.gz")))
        .isEmpty();
    assertThat(ExtensionArchiveKey.fromTierPath(TierPath.of("config/pulled-archives/@a/b/abc.tar.gz"))).isEmpty();
  }

  @Test
  void compareTo_ordersByNameThenDigest() {
    ExtensionArchiveKey a1 = ExtensionArchiveKey.of("@a/x", "1".repeat(64));
    ExtensionArchiveKey a2 = ExtensionArchiveKey.of("@a/x", "2".repeat(64));
    ExtensionArchiveKey b1 = ExtensionArchiveKey.of("@b/x", "1".repeat(64));

    assertThat(java.util.stream.Stream.of(b1, a2, a1).sorted()).containsExactly(a1, a2, b1);
  }
}
