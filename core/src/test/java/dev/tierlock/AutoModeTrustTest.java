package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The auto mode's trust rule counts Tierlock versions, never the gaps a warm write on a repeated version marks. */
class AutoModeTrustTest {

  private static LockfileHead head(String... lineage) {
    return new LockfileHead(ObjectVersion.of("v"), List.of(lineage));
  }

  @Test
  void aLineageWithAGap_isTrustedOnItsIdsAlone() {
    AutoMode auto = new AutoMode(3);
    assertThat(auto.trusts(head("a", LockfileHead.GAP, "b"), ObjectMetadata.MAX_BYTES)).isFalse();
    assertThat(auto.trusts(head("a", LockfileHead.GAP, "b", "c"), ObjectMetadata.MAX_BYTES)).isTrue();
    assertThat(auto.trusts(head("a", "b", "c"), ObjectMetadata.MAX_BYTES)).isTrue();
  }

  @Test
  void anAbsentOrForeignHead_isNotTrusted() {
    AutoMode auto = new AutoMode(1);
    assertThat(auto.trusts(null, ObjectMetadata.MAX_BYTES)).isFalse();
    assertThat(auto.trusts(head(), ObjectMetadata.MAX_BYTES)).isFalse();
  }
}
