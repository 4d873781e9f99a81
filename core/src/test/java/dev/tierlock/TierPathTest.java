package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TierPathTest {

  private static final String DIGEST = "0123456789abcdef".repeat(4);

  @Test
  void anArchivesPath_namesItsExtensionAndDigest() {
    TierPath path = TierPath.of("config/pulled-archives/@acme/tools/sub/" + DIGEST + ".tar.gz");

    assertThat(path.archiveOf()).contains(ExtensionName.of("@acme/tools/sub"));
    assertThat(path.archiveSha256()).contains(DIGEST);
  }

  @Test
  void anyOtherPath_namesNoArchive() {
    for (String other : new String[] {"config/upstream_extensions.json", "config/pulled-archives/" + DIGEST + ".tar.gz",
        "config/pulled-archives/@a/b/" + DIGEST + ".zip", "config/pulled-archives/@a/B/" + DIGEST + ".tar.gz",
        "config/pulled-archives/@a/b/abc.tar.gz", "config/pulled-archives/@a/b/" + DIGEST.toUpperCase() + ".tar.gz",
        "config/other/@a/b/" + DIGEST + ".tar.gz"}) {
      TierPath path = TierPath.of(other);
      assertThat(path.archiveOf()).as(other).isEmpty();
      assertThat(path.archiveSha256()).as(other).isEmpty();
    }
  }
}
