package dev.tierlock.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ArchiveLimitsTest {

  @Test
  void defaults_are50MiBCompressedAnd500MiBDecompressed() {
    assertThat(ArchiveLimits.defaults()).isSameAs(ArchiveLimits.DEFAULTS);
    assertThat(ArchiveLimits.DEFAULTS.maxCompressedBytes()).isEqualTo(52_428_800L);
    assertThat(ArchiveLimits.DEFAULTS.maxDecompressedBytes()).isEqualTo(524_288_000L);
    assertThat(ArchiveLimits.DEFAULTS.maxEntries()).isEqualTo(ArchiveLimits.DEFAULT_MAX_ENTRIES);
    assertThat(ArchiveLimits.DEFAULTS.maxPathLength()).isEqualTo(ArchiveLimits.DEFAULT_MAX_PATH_LENGTH);
  }

  @Test
  void with_changesOneCap() {
    ArchiveLimits limits = ArchiveLimits.DEFAULTS.withMaxCompressedBytes(1).withMaxDecompressedBytes(2)
        .withMaxEntries(3).withMaxPathLength(4);

    assertThat(limits).isEqualTo(new ArchiveLimits(1, 2, 3, 4));
  }

  @Test
  void constructor_nonPositiveCap_isRefused() {
    assertThatThrownBy(() -> ArchiveLimits.DEFAULTS.withMaxDecompressedBytes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use archive limits 52428800/0/20000/1024: every cap is positive");
  }
}
