package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectVersion;
import java.util.List;
import org.junit.jupiter.api.Test;

class LandingTest {

  private static LockfileHead head(String version, String... lineage) {
    return new LockfileHead(ObjectVersion.of(version), List.of(lineage));
  }

  @Test
  void ourCommitNow_orInTheLineageOfALaterVersion_landed() {
    LockfileHead parent = head("v1", "c1");

    assertThat(Landing.of("c2", parent, head("v2", "c2", "c1"))).isEqualTo(Landing.LANDED);
    assertThat(Landing.of("c2", parent, head("v3", "peer", "c2", "c1"))).isEqualTo(Landing.LANDED);
    assertThat(Landing.of("c2", null, head("v3", "peer", "c2"))).isEqualTo(Landing.LANDED);
  }

  @Test
  void theVersionConditionedOn_withItsCommit_didNotLand() {
    assertThat(Landing.of("c2", head("v1", "c1"), head("v1", "c1"))).isEqualTo(Landing.NOT_LANDED);
    assertThat(Landing.of("c2", head("v1"), head("v1"))).as("a version without metadata").isEqualTo(Landing.NOT_LANDED);
    assertThat(Landing.of("c2", null, null)).as("a create while it is still absent").isEqualTo(Landing.NOT_LANDED);
  }

  @Test
  void anythingElse_isUnknown() {
    LockfileHead parent = head("v1", "c1");

    assertThat(Landing.of("c2", parent, head("v2", "peer", "c1"))).as("a peer built on our parent").isEqualTo(Landing.UNKNOWN);
    assertThat(Landing.of("c2", parent, head("v1", "peer", "c1")))
        .as("the same version text with another commit: an S3 ETag repeats for equal bytes").isEqualTo(Landing.UNKNOWN);
    assertThat(Landing.of("c2", parent, head("v9"))).as("a write by another tool").isEqualTo(Landing.UNKNOWN);
    assertThat(Landing.of("c2", parent, null)).as("the lockfile was deleted").isEqualTo(Landing.UNKNOWN);
    assertThat(Landing.of("c2", null, head("v1", "peer"))).as("a peer created it").isEqualTo(Landing.UNKNOWN);
  }
}
