package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LockfileHeadTest {

  private static final ObjectVersion V1 = ObjectVersion.of("v1");

  private static StoredObject object(ObjectMetadata metadata) {
    return new StoredObject(ObjectKey.of("config/upstream_extensions.json"), V1, 2, metadata);
  }

  @Test
  void of_readsTheCommitThenItsHistory() {
    LockfileHead head = LockfileHead.of(object(new ObjectMetadata(Map.of(ObjectMetadata.COMMIT_ID, "c3",
        LockfileHead.HISTORY, "c2 c1"))));

    assertThat(head.lineage()).containsExactly("c3", "c2", "c1");
    assertThat(head.commitId()).contains("c3");
    assertThat(head.includes("c1")).isTrue();
    assertThat(head.includes("c4")).isFalse();
  }

  @Test
  void of_withoutACommitId_hasNoLineage_whateverTheHistorySays() {
    assertThat(LockfileHead.of(object(ObjectMetadata.of(LockfileHead.HISTORY, "c2 c1"))).lineage()).isEmpty();
    assertThat(LockfileHead.of(object(ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "not an id"))).lineage()).isEmpty();
    assertThat(LockfileHead.of(object(ObjectMetadata.EMPTY)).commitId()).isEmpty();
  }

  @Test
  void of_keepsTheHistoryUpToItsFirstInvalidId() {
    LockfileHead head = LockfileHead.of(object(new ObjectMetadata(Map.of(ObjectMetadata.COMMIT_ID, "c3",
        LockfileHead.HISTORY, "c2 c1! c0"))));

    assertThat(head.lineage()).containsExactly("c3", "c2");
  }

  @Test
  void metadataOf_carriesAsMuchOfTheParentsLineageAsTheStoreHolds() {
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      many.add(String.format("%016x", 0xabc0_0000_0000_0000L + i));
    }
    LockfileHead parent = new LockfileHead(V1, many);

    for (int capacity : new int[] {2048, 8192}) {
      ObjectMetadata metadata = LockfileHead.metadataOf("0123456789abcdef", parent, capacity);
      int kept = metadata.get(LockfileHead.HISTORY).orElseThrow().split(" ").length;

      assertThat(metadata.byteSize()).as("capacity %d", capacity).isLessThanOrEqualTo(capacity - LockfileHead.METADATA_MARGIN);
      assertThat(metadata.get(LockfileHead.HISTORY)).contains(String.join(" ", many.subList(0, kept)));
      assertThat(1 + kept).isEqualTo(LockfileHead.lineageLength(capacity, 16));
    }
    assertThat(LockfileHead.lineageLength(2048, 16)).as("S3: 2 KiB of user metadata").isEqualTo(114);
    assertThat(LockfileHead.lineageLength(8192, 16)).as("GCS: 8 KiB of custom metadata").isEqualTo(475);
  }

  @Test
  void metadataOf_aCreateOrALegacyParent_carriesOnlyTheCommitId() {
    assertThat(LockfileHead.metadataOf("c1", null, 2048).values()).containsOnlyKeys(ObjectMetadata.COMMIT_ID);
    assertThat(LockfileHead.metadataOf("c1", new LockfileHead(V1, List.of()), 2048).values())
        .containsOnlyKeys(ObjectMetadata.COMMIT_ID);
  }

  @Test
  void invalidIds_areRejected() {
    assertThatThrownBy(() -> new LockfileHead(V1, List.of("ok", "not ok")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use commit id \"not ok\": letters, digits and -, 1 to 64 characters");
    assertThatThrownBy(() -> LockfileHead.metadataOf("x".repeat(65), null, 2048))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot use commit id \"xxx");
  }

  @Test
  void metadataOf_aParentNotRead_writesAGapAfterTheId_thatReadsBackAsOne() {
    LockfileHead parent = new LockfileHead(V1, List.of("c2", "c1"));

    ObjectMetadata metadata = LockfileHead.metadataOf("c3", parent, 2048, true);

    assertThat(metadata.get(LockfileHead.HISTORY)).contains("~ c2 c1");
    LockfileHead written = LockfileHead.of(object(metadata));
    assertThat(written.lineage()).containsExactly("c3", LockfileHead.GAP, "c2", "c1");
    assertThat(written.commitId()).contains("c3");
    assertThat(written.completeAbove("c3")).isTrue();
    assertThat(written.completeAbove("c2")).as("commits between c3 and c2 may be missing").isFalse();
    assertThat(LockfileHead.parse(written.lineageText())).as("the cache and the pending record keep it")
        .isEqualTo(written.lineage());
    assertThat(LockfileHead.metadataOf("c4", written, 2048, false).get(LockfileHead.HISTORY)).contains("c3 ~ c2 c1");
  }

  @Test
  void metadataOf_aGapWithNothingAfterIt_isNotWritten() {
    assertThat(LockfileHead.metadataOf("c3", null, 2048, true).get(LockfileHead.HISTORY)).isEmpty();
    assertThat(LockfileHead.metadataOf("c3", new LockfileHead(V1, List.of()), 2048, true).get(LockfileHead.HISTORY))
        .as("a parent by another tool").isEmpty();
    int onlyTheGap = LockfileHead.METADATA_MARGIN + ObjectMetadata.COMMIT_ID.length() + 2 + LockfileHead.HISTORY.length() + 1;
    assertThat(LockfileHead.metadataOf("c3", new LockfileHead(V1, List.of("c2")), onlyTheGap, true)
        .get(LockfileHead.HISTORY)).as("room for the gap but not the id after it").isEmpty();
  }

  @Test
  void repeatedGapsFold_andAGapIsNoCommitId_soAReaderThatKnowsNoGapStopsItsHistoryThere() {
    ObjectMetadata metadata = new ObjectMetadata(Map.of(ObjectMetadata.COMMIT_ID, "c3", LockfileHead.HISTORY, "~ ~ c2 ?"));

    assertThat(LockfileHead.of(object(metadata)).lineage()).as("repeated gaps fold, the history stops at its first"
        + " invalid element").containsExactly("c3", LockfileHead.GAP, "c2");
    assertThatThrownBy(() -> new LockfileHead(V1, List.of(LockfileHead.GAP, "c2")))
        .as("a version's own id is never a gap").isInstanceOf(IllegalArgumentException.class);
    assertThat(LockfileHead.isCommitId(LockfileHead.GAP)).as("older readers stop at it: they prove less, never more")
        .isFalse();
  }
}
