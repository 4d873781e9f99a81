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

    assertThat(Landing.of("c2", parent, head("v2", "c2", "c1"), true)).isInstanceOf(Landing.Landed.class);
    assertThat(Landing.of("c2", parent, head("v3", "peer", "c2", "c1"), true)).isInstanceOf(Landing.Landed.class);
    assertThat(Landing.of("c2", null, head("v3", "peer", "c2"), true)).isInstanceOf(Landing.Landed.class);
  }

  @Test
  void theVersionConditionedOn_stillCurrent_hasNotLandedYet() {
    assertThat(Landing.of("c2", head("v1", "c1"), head("v1", "c1"), true)).isInstanceOf(Landing.NotYet.class);
    assertThat(Landing.of("c2", head("v1"), head("v1"), false)).as("a version without metadata, on a store whose versions"
        + " never repeat").isInstanceOf(Landing.NotYet.class);
    assertThat(Landing.of("c2", head("v1"), head("v1"), true)).as("the same, where another tool writing the old bytes"
        + " again gives the old version back").isInstanceOf(Landing.Unknown.class);
    assertThat(Landing.of("c2", null, null, true)).as("a create while it is still absent").isInstanceOf(Landing.NotYet.class);
    assertThat(Landing.of("c2", head("v1", "c1"), head("v1", "peer", "c1"), true))
        .as("the parent's bytes back after a peer's successor (an S3 ETag repeats for equal bytes): ours can land now")
        .isInstanceOf(Landing.NotYet.class);
    assertThat(Landing.of("c2", head("v1", "c1"), head("v1", "other"), true))
        .as("the parent's version with a commit whose lineage does not show the parent").isInstanceOf(Landing.Unknown.class);
  }

  @Test
  void anotherSuccessorOfOurParent_inTheLineage_didNotLand() {
    LockfileHead parent = head("v1", "c1");

    assertThat(Landing.of("c2", parent, head("v2", "peer", "c1"), true)).as("a peer built on our parent").isInstanceOf(Landing.NotLanded.class);
    assertThat(Landing.of("c2", parent, head("v5", "p3", "p2", "peer", "c1", "c0"), true))
        .as("further down the lineage").isInstanceOf(Landing.NotLanded.class);
  }

  @Test
  void anythingElse_isUnknown() {
    LockfileHead parent = head("v1", "c1");

    assertThat(Landing.of("c2", parent, head("v7", "p5", "p4", "p3"), true)).as("the lineage does not reach our parent")
        .isInstanceOf(Landing.Unknown.class);
    assertThat(Landing.of("c2", head("v1"), head("v2", "peer"), true)).as("a parent without a commit id that moved on")
        .isInstanceOf(Landing.Unknown.class);
    assertThat(Landing.of("c2", parent, head("v9"), true)).as("a write by another tool").isInstanceOf(Landing.Unknown.class);
    assertThat(Landing.of("c2", parent, null, true)).as("the lockfile was deleted").isInstanceOf(Landing.Unknown.class);
    assertThat(Landing.of("c2", null, head("v1", "peer"), true)).as("a peer created it").isInstanceOf(Landing.Unknown.class);
  }

  /**
   * A warm commit on a store whose versions repeat without binding the metadata writes a gap after
   * its id ({@link LockfileHead#GAP}): peers' commits on the bytes it replaced may be missing. A
   * write conditioned at or below the gap, absent from the lineage, may have landed there: never
   * "not landed" nor "not landed yet" (each verdict would re-apply or re-send it over whatever undid
   * it), always unknown. A write conditioned above the gap is judged as before, and an id anywhere
   * still proves "landed".
   */
  @Test
  void acrossAGap_onlyLandedIsProven() {
    LockfileHead parent = head("v1", "c1");
    assertThat(Landing.of("peer", parent, head("v2", "warm", LockfileHead.GAP, "c1"), true))
        .as("its parent followed by a warm commit: it may have landed before and been replaced")
        .isInstanceOf(Landing.Unknown.class);
    assertThat(Landing.of("peer", parent, head("v1", "undo", "warm", LockfileHead.GAP, "c1"), true))
        .as("its parent's bytes back across a gap").isInstanceOf(Landing.Unknown.class);
    assertThat(Landing.of("peer", head("v2", "warm", LockfileHead.GAP, "c1"), head("v3", "next", "warm",
        LockfileHead.GAP, "c1"), true)).as("conditioned above the gap").isInstanceOf(Landing.NotLanded.class);
    assertThat(Landing.of("peer", head("v2", "warm", LockfileHead.GAP, "c1"), head("v2", "warm", LockfileHead.GAP,
        "c1"), true)).as("its parent, above the gap, still current").isInstanceOf(Landing.NotYet.class);
    assertThat(Landing.of("c1", head("v0", "c0"), head("v3", "warm", LockfileHead.GAP, "c1", "c0"), true))
        .as("an id beyond the gap").isInstanceOf(Landing.Landed.class);
  }

  /** The same lineage with no gap (the peer's commits replaced, as a warm write without a gap would leave it) misleads. */
  @Test
  void theSameReplacementWithoutAGap_wouldProveNotLanded_orNotYet() {
    LockfileHead parent = head("v1", "c1");
    assertThat(Landing.of("peer", parent, head("v2", "warm", "c1"), true)).isInstanceOf(Landing.NotLanded.class);
    assertThat(Landing.of("peer", parent, head("v1", "undo", "warm", "c1"), true)).isInstanceOf(Landing.NotYet.class);
  }
}
